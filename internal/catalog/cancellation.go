package catalog

import "github.com/skygate/skygate"

// FastTrackCancellation returns the fast-track's cancellation policy, largest
// hours_before first (shared: do not modify); ok is false for an unknown id or before
// Open. Booking create renders it for each priced booking's flight and price.
func (s *Service) FastTrackCancellation(id string) (rules []skygate.CancellationRule, ok bool) {
	ref, ok := s.fastTrack(id)
	if !ok {
		return nil, false
	}
	return ref.rec.Policy.Cancellation, true
}
