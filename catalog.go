package skygate

// This file holds the airport catalog: hubs (airports), business lounges and fast-track
// services. Two forms exist:
//
//   - the stored form (CatalogData and the *Record types) is the JSON document kept by
//     CatalogStore, shipped as the seed and accepted by the admin import; every
//     human-readable text in it is a LocalizedText with all four languages;
//   - the response form (Hub, Lounge, FastTrack) is what partners receive; every text is a
//     plain string in the negotiated language.
//
// Every field of the response form is always present (no field is omitted); strings that
// have nothing to say are "". Identifiers are lowercase RFC 9562 UUIDs that never change
// between catalog versions, so partners may store them.

import "slices"

// Languages of the catalog (ISO 639-1 base languages). LangEN is the default.
const (
	LangEN = "en"
	LangRU = "ru"
	// LangUZ is Uzbek in the Latin script (the official orthography of 1995, with ʻ in oʻ
	// and gʻ). A request for uz-Cyrl is still answered in Latin-script Uzbek.
	LangUZ = "uz"
	// LangKK is Kazakh in the Cyrillic script.
	LangKK = "kk"
)

// Languages lists the supported languages, the default first.
var Languages = []string{LangEN, LangRU, LangUZ, LangKK}

// Language returns lang when it is one of Languages, else LangEN.
func Language(lang string) string {
	if slices.Contains(Languages, lang) {
		return lang
	}
	return LangEN
}

// LocalizedText is one human-readable text in every supported language. In a valid
// catalog all four are non-empty.
type LocalizedText struct {
	EN string `json:"en"`
	RU string `json:"ru"`
	UZ string `json:"uz"`
	KK string `json:"kk"`
}

// In returns the text in lang, or the English text for an unsupported lang.
func (t LocalizedText) In(lang string) string {
	switch lang {
	case LangRU:
		return t.RU
	case LangUZ:
		return t.UZ
	case LangKK:
		return t.KK
	default:
		return t.EN
	}
}

// Continent is where a hub lies, in PascalCase without spaces. Istanbul Airport (IST)
// lies on the European side of the city and is Europe.
type Continent string

const (
	ContinentAfrica       Continent = "Africa"
	ContinentAntarctica   Continent = "Antarctica"
	ContinentAsia         Continent = "Asia"
	ContinentEurope       Continent = "Europe"
	ContinentNorthAmerica Continent = "NorthAmerica"
	ContinentOceania      Continent = "Oceania"
	ContinentSouthAmerica Continent = "SouthAmerica"
)

// Continents lists every Continent value.
var Continents = []Continent{
	ContinentAfrica, ContinentAntarctica, ContinentAsia, ContinentEurope,
	ContinentNorthAmerica, ContinentOceania, ContinentSouthAmerica,
}

// HubKind is the kind of a hub (Hub.Kind and HubMeta.Kind). Only airports exist today;
// partners must tolerate new values.
type HubKind string

// HubKindAirport is an airport; its HubMeta carries IATA and ICAO codes.
const HubKindAirport HubKind = "Airport"

// HubKinds lists every HubKind value.
var HubKinds = []HubKind{HubKindAirport}

// AirsideZone is the part of the terminal a lounge or fast-track serves: International
// and Domestic flights, or at airports of the Schengen area its Schengen and NonSchengen
// piers.
type AirsideZone string

const (
	ZoneInternational AirsideZone = "International"
	ZoneDomestic      AirsideZone = "Domestic"
	ZoneSchengen      AirsideZone = "Schengen"
	ZoneNonSchengen   AirsideZone = "NonSchengen"
)

// AirsideZones lists every AirsideZone value.
var AirsideZones = []AirsideZone{ZoneInternational, ZoneDomestic, ZoneSchengen, ZoneNonSchengen}

// HoursType says how to read BusinessHoursTimes.Detail.
type HoursType string

const (
	// HoursStandard: Detail lists opening intervals in the hub's local time as
	// "HH:MM-HH:MM", several separated by ",", ascending and not overlapping, each start
	// before its end; "24:00" may end the last interval. Example "05:00-12:00,14:00-23:30".
	HoursStandard HoursType = "STANDARD"
	// Hours24H: open all day; Detail is "00:00-24:00".
	Hours24H HoursType = "24H"
	// HoursClosed: closed all day; Detail is "".
	HoursClosed HoursType = "CLOSED"
)

// HoursTypes lists every HoursType value.
var HoursTypes = []HoursType{HoursStandard, Hours24H, HoursClosed}

// BookingInfo names a piece of information a booking must carry. In the booking request
// Name is first_name and last_name of every passenger, FlightNumber is flight.number, and
// the others are the passenger fields date_of_birth (YYYY-MM-DD), passport_number,
// nationality (ISO 3166-1 alpha-2), email and phone (E.164).
type BookingInfo string

const (
	InfoName           BookingInfo = "Name"
	InfoFlightNumber   BookingInfo = "FlightNumber"
	InfoDateOfBirth    BookingInfo = "DateOfBirth"
	InfoPassportNumber BookingInfo = "PassportNumber"
	InfoNationality    BookingInfo = "Nationality"
	InfoEmail          BookingInfo = "Email"
	InfoPhone          BookingInfo = "Phone"
)

// BookingInfos lists every BookingInfo value.
var BookingInfos = []BookingInfo{
	InfoName, InfoFlightNumber, InfoDateOfBirth, InfoPassportNumber, InfoNationality,
	InfoEmail, InfoPhone,
}

// Coordinates are WGS 84 decimal degrees: latitude in [-90, 90], longitude in [-180, 180].
type Coordinates struct {
	Latitude  float64 `json:"latitude"`
	Longitude float64 `json:"longitude"`
}

// Location is where a hub is. Country is an ISO 3166-1 alpha-2 code in upper case; City
// is the city the hub serves, in the response language.
type Location struct {
	City        string      `json:"city"`
	Country     string      `json:"country"`
	Continent   Continent   `json:"continent"`
	Coordinates Coordinates `json:"coordinates"`
}

// HubMeta identifies a hub by its kind's codes: for an airport the IATA code (three
// upper-case letters) and the ICAO code (four upper-case letters).
type HubMeta struct {
	Kind HubKind `json:"kind"`
	IATA string  `json:"iata"`
	ICAO string  `json:"icao"`
}

// Hub is an airport in the response form. Timezone is an IANA time zone name (e.g.
// "Asia/Tashkent"); business hours are in that zone.
type Hub struct {
	ID       string   `json:"id"`
	Location Location `json:"location"`
	Timezone string   `json:"timezone"`
	Kind     HubKind  `json:"kind"`
	Name     string   `json:"name"`
	Meta     HubMeta  `json:"meta"`
}

// BusinessHours is the opening of one weekday. Day is ISO 8601 numbering: 1 = Monday …
// 7 = Sunday. A valid catalog lists each of the seven days exactly once, in order.
type BusinessHours struct {
	Day   int                `json:"day"`
	Times BusinessHoursTimes `json:"times"`
}

// BusinessHoursTimes is the opening of one day; HoursType explains Detail.
type BusinessHoursTimes struct {
	Type   HoursType `json:"type"`
	Detail string    `json:"detail"`
}

// Amenity is a facility of a lounge. ID is a stable lowercase code such as "wifi",
// "shower" or "buffet"; IsFree is false when the lounge charges for it.
type Amenity struct {
	ID     string `json:"id"`
	Name   string `json:"name"`
	IsFree bool   `json:"is_free"`
}

// AgePolicy: MinAge is the minimum age of a guest in years (0: guests of any age, infants
// included); Notes explains the rules for children, such as who must be accompanied.
type AgePolicy struct {
	MinAge int    `json:"min_age"`
	Notes  string `json:"notes"`
}

// StayPolicy: MaxDuration is the longest included stay as an ISO 8601 duration of days,
// hours and minutes only (e.g. "PT3H", "PT2H30M", "P1D").
type StayPolicy struct {
	MaxDuration string `json:"max_duration"`
}

// LoungePolicy is the admission policy of a lounge.
type LoungePolicy struct {
	Age  AgePolicy  `json:"age"`
	Stay StayPolicy `json:"stay"`
}

// Image is a picture of a lounge: an absolute https URL, its position (ascending Sort,
// starting at 1) and a caption.
type Image struct {
	URL   string `json:"url"`
	Sort  int    `json:"sort"`
	Title string `json:"title"`
}

// Lounge is a business lounge in the response form. Location is the location of its
// hub. Code is a stable partner-facing code (e.g. "TAS-T2-BIZ"); Terminal names the
// terminal as the airport does (e.g. "2", "T3", "C"). Landside lounges are before
// security and passport control. Amenities are ordered as the catalog lists them, Images
// by Sort.
type Lounge struct {
	ID                  string          `json:"id"`
	Name                string          `json:"name"`
	Code                string          `json:"code"`
	Terminal            string          `json:"terminal"`
	Description         string          `json:"description"`
	Location            Location        `json:"location"`
	Hub                 Hub             `json:"hub"`
	Landside            bool            `json:"landside"`
	AirsideZone         AirsideZone     `json:"airside_zone"`
	IsArrivalAvailable  bool            `json:"is_arrival_available"`
	Amenities           []Amenity       `json:"amenities"`
	BusinessHours       []BusinessHours `json:"business_hours"`
	IsActive            bool            `json:"is_active"`
	IsPremium           bool            `json:"is_premium"`
	Policy              LoungePolicy    `json:"policy"`
	RequiredBookingInfo []BookingInfo   `json:"required_booking_info"`
	Images              []Image         `json:"images"`
	DirectionInfo       string          `json:"direction_info"`
}

// FastTrackPolicy: BookingBeforeHours is how long before the service day starts at the
// airport (00:00 in the hub's zone) a booking must be made, as an ISO 8601 duration
// (e.g. "PT24H"), same subset as StayPolicy.MaxDuration.
type FastTrackPolicy struct {
	BookingBeforeHours string `json:"booking_before_hours"`
	// Cancellation is the fast-track's cancellation policy (CancellationRule), largest
	// HoursBefore first.
	Cancellation []CancellationRule `json:"cancellation"`
}

// FastTrack is a fast-track service in the response form. Beyond SPEC §2.4 it carries
// Name (localized; the name filter of the list matches it) and Terminal, with the same
// meaning as for a lounge.
type FastTrack struct {
	ID                  string          `json:"id"`
	Name                string          `json:"name"`
	Terminal            string          `json:"terminal"`
	Location            Location        `json:"location"`
	Hub                 Hub             `json:"hub"`
	AirsideZone         AirsideZone     `json:"airside_zone"`
	BusinessHours       []BusinessHours `json:"business_hours"`
	IsActive            bool            `json:"is_active"`
	RequiredBookingInfo []BookingInfo   `json:"required_booking_info"`
	Policy              FastTrackPolicy `json:"policy"`
	// CapacityPerSlot is how many passengers (infants not counted) the fast-track
	// serves in one one-hour slot, unless an admin set another (BookingSlot).
	CapacityPerSlot int `json:"capacity_per_slot"`
	// Price is the calling account's adult price of the fast-track, nil when the
	// account has none.
	Price *Money `json:"price"`
}

// CatalogData is the stored form of the whole catalog: the JSON document in
// CatalogDocument.Data. Lounges and fast-tracks refer to their hub by HubID and lounge
// amenities refer to Amenities by ID, so each text is translated once.
type CatalogData struct {
	Hubs       []HubRecord       `json:"hubs"`
	Amenities  []AmenityRecord   `json:"amenities"`
	Lounges    []LoungeRecord    `json:"lounges"`
	FastTracks []FastTrackRecord `json:"fast_tracks"`
}

// LocationRecord is the stored form of Location.
type LocationRecord struct {
	City        LocalizedText `json:"city"`
	Country     string        `json:"country"`
	Continent   Continent     `json:"continent"`
	Coordinates Coordinates   `json:"coordinates"`
}

// HubRecord is the stored form of Hub.
type HubRecord struct {
	ID       string         `json:"id"`
	Location LocationRecord `json:"location"`
	Timezone string         `json:"timezone"`
	Kind     HubKind        `json:"kind"`
	Name     LocalizedText  `json:"name"`
	Meta     HubMeta        `json:"meta"`
}

// AmenityRecord is an amenity known to the catalog.
type AmenityRecord struct {
	ID   string        `json:"id"`
	Name LocalizedText `json:"name"`
}

// LoungeAmenity is a lounge's reference to an AmenityRecord.
type LoungeAmenity struct {
	ID     string `json:"id"`
	IsFree bool   `json:"is_free"`
}

// AgePolicyRecord is the stored form of AgePolicy.
type AgePolicyRecord struct {
	MinAge int           `json:"min_age"`
	Notes  LocalizedText `json:"notes"`
}

// LoungePolicyRecord is the stored form of LoungePolicy.
type LoungePolicyRecord struct {
	Age  AgePolicyRecord `json:"age"`
	Stay StayPolicy      `json:"stay"`
}

// ImageRecord is the stored form of Image.
type ImageRecord struct {
	URL   string        `json:"url"`
	Sort  int           `json:"sort"`
	Title LocalizedText `json:"title"`
}

// LoungeRecord is the stored form of Lounge.
type LoungeRecord struct {
	ID                  string             `json:"id"`
	HubID               string             `json:"hub_id"`
	Name                LocalizedText      `json:"name"`
	Code                string             `json:"code"`
	Terminal            string             `json:"terminal"`
	Description         LocalizedText      `json:"description"`
	Landside            bool               `json:"landside"`
	AirsideZone         AirsideZone        `json:"airside_zone"`
	IsArrivalAvailable  bool               `json:"is_arrival_available"`
	Amenities           []LoungeAmenity    `json:"amenities"`
	BusinessHours       []BusinessHours    `json:"business_hours"`
	IsActive            bool               `json:"is_active"`
	IsPremium           bool               `json:"is_premium"`
	Policy              LoungePolicyRecord `json:"policy"`
	RequiredBookingInfo []BookingInfo      `json:"required_booking_info"`
	Images              []ImageRecord      `json:"images"`
	DirectionInfo       LocalizedText      `json:"direction_info"`
}

// FastTrackRecord is the stored form of FastTrack.
type FastTrackRecord struct {
	ID                  string          `json:"id"`
	HubID               string          `json:"hub_id"`
	Name                LocalizedText   `json:"name"`
	Terminal            string          `json:"terminal"`
	AirsideZone         AirsideZone     `json:"airside_zone"`
	BusinessHours       []BusinessHours `json:"business_hours"`
	IsActive            bool            `json:"is_active"`
	RequiredBookingInfo []BookingInfo   `json:"required_booking_info"`
	Policy              FastTrackPolicy `json:"policy"`
	// CapacityPerSlot: see FastTrack.
	CapacityPerSlot int `json:"capacity_per_slot"`
}
