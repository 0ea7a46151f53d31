package api_test

import (
	"slices"
	"testing"

	"github.com/skygate/skygate/api"
)

// TestAlwaysSentFieldsAreRequired: fields the server always sends (no omitempty in
// their Go type) are required in their schema, so that generated clients read them as
// values, not as optional pointers, and responses missing them fail validation.
func TestAlwaysSentFieldsAreRequired(t *testing.T) {
	t.Parallel()
	doc, err := api.Load(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	for schema, fields := range map[string][]string{
		"ESIMBase":        {"iccid", "status", "profile_state", "order_id", "package_id", "usage", "canceled_at", "refundable_until", "created_at", "updated_at"},
		"ESIMPackageItem": {"id", "name", "countries", "data_mb", "validity_days", "price", "top_up", "refund_window_days", "regions"},
		"ESIMSettings":    {"usage_thresholds"},
	} {
		ref := doc.Components.Schemas[schema]
		if ref == nil || ref.Value == nil {
			t.Errorf("no schema %s", schema)
			continue
		}
		for _, f := range fields {
			if !slices.Contains(ref.Value.Required, f) {
				t.Errorf("%s does not require %s (required: %v)", schema, f, ref.Value.Required)
			}
		}
	}
	thresholds := doc.Components.Schemas["ESIMSettings"].Value.Properties["usage_thresholds"].Value
	if !thresholds.UniqueItems {
		t.Error("ESIMSettings.usage_thresholds is not uniqueItems: the thresholds are strictly ascending")
	}
}
