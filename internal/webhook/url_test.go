package webhook_test

import (
	"context"
	"errors"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"testing"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/webhook"
)

// testResolver knows a few public and private names.
func testResolver() *fakeResolver {
	return newResolver(map[string][]string{
		"hooks.example.com":        {"93.184.216.34"},
		"v6.example.com":           {"2606:2800:220:1:248:1893:25c8:1946"},
		"loopback.example.com":     {"127.0.0.1"},
		"mixed.example.com":        {"93.184.216.34,10.0.0.7"},
		"metadata.google.internal": {"169.254.169.254"},
		"rebind.example.com":       {"93.184.216.34", "127.0.0.1"},
	})
}

func TestCheckURL(t *testing.T) {
	t.Parallel()
	prod := webhook.Policy{Resolver: testResolver()}
	dev := webhook.Policy{AllowHTTP: true, Resolver: testResolver()}
	private := webhook.Policy{AllowHTTP: true, AllowPrivate: true, Resolver: testResolver()}
	tests := []struct {
		name   string
		policy webhook.Policy
		url    string
		ok     bool
	}{
		{"https", prod, "https://hooks.example.com/skygate?x=1", true},
		{"https with port", prod, "https://hooks.example.com:8443/in", true},
		{"public IPv4 literal", prod, "https://93.184.216.34/in", true},
		{"public IPv6 literal", prod, "https://[2606:2800:220:1:248:1893:25c8:1946]/in", true},
		{"name resolving to IPv6", prod, "https://v6.example.com/in", true},
		{"http in production", prod, "http://hooks.example.com/in", false},
		{"http outside production", dev, "http://hooks.example.com/in", true},
		{"ftp", dev, "ftp://hooks.example.com/in", false},
		{"relative", prod, "/in", false},
		{"empty", prod, "", false},
		{"no host", prod, "https:///in", false},
		{"opaque", prod, "https:hooks.example.com", false},
		{"userinfo", prod, "https://user:pass@hooks.example.com/in", false},
		{"user only", prod, "https://user@hooks.example.com/in", false},
		{"fragment", prod, "https://hooks.example.com/in#top", false},
		{"space", prod, "https://hooks.example.com/a b", false},
		{"bad port", prod, "https://hooks.example.com:99999/in", false},
		{"empty port", prod, "https://hooks.example.com:/in", false},
		{"at the length limit", prod, "https://hooks.example.com/" + strings.Repeat("a", 2048-len("https://hooks.example.com/")), true},
		{"too long", prod, "https://hooks.example.com/" + strings.Repeat("a", 2048), false},
		{"127.0.0.1", prod, "https://127.0.0.1/in", false},
		{"127.0.0.2", prod, "https://127.0.0.2/in", false},
		{"localhost", prod, "https://localhost/in", false},
		{"LOCALHOST.", prod, "https://LOCALHOST./in", false},
		{"sub.localhost", prod, "https://api.localhost/in", false},
		{"10.x", prod, "https://10.1.2.3/in", false},
		{"192.168.x", prod, "https://192.168.1.1/in", false},
		{"172.16.x", prod, "https://172.16.0.1/in", false},
		{"172.31.x", prod, "https://172.31.255.255/in", false},
		{"metadata", prod, "http://169.254.169.254/latest/meta-data/", false},
		{"metadata name", prod, "https://metadata.google.internal/computeMetadata/v1/", false},
		{"0.0.0.0", prod, "https://0.0.0.0/in", false},
		{"0.x", prod, "https://0.1.2.3/in", false},
		{"CGNAT", prod, "https://100.64.0.1/in", false},
		{"multicast", prod, "https://224.0.0.1/in", false},
		{"broadcast", prod, "https://255.255.255.255/in", false},
		{"documentation", prod, "https://192.0.2.10/in", false},
		{"[::1]", prod, "https://[::1]/in", false},
		{"[::]", prod, "https://[::]/in", false},
		{"[::ffff:127.0.0.1]", prod, "https://[::ffff:127.0.0.1]/in", false},
		{"[::ffff:7f00:1]", prod, "https://[::ffff:7f00:1]/in", false},
		{"[::ffff:a9fe:a9fe] metadata mapped", prod, "https://[::ffff:a9fe:a9fe]/in", false},
		{"[::127.0.0.1] compatible", prod, "https://[::127.0.0.1]/in", false},
		{"[64:ff9b::7f00:1] NAT64 loopback", prod, "https://[64:ff9b::7f00:1]/in", false},
		{"[2002:7f00:1::] 6to4 loopback", prod, "https://[2002:7f00:1::]/in", false},
		{"fc00::1", prod, "https://[fc00::1]/in", false},
		{"fd00:ec2::254 metadata", prod, "https://[fd00:ec2::254]/in", false},
		{"fe80::1", prod, "https://[fe80::1]/in", false},
		{"fe80::1 with zone", prod, "https://[fe80::1%25eth0]/in", false},
		{"ff02::1", prod, "https://[ff02::1]/in", false},
		{"hex 0x7f000001", prod, "https://0x7f000001/in", false},
		{"decimal 2130706433", prod, "https://2130706433/in", false},
		{"octal 017700000001", prod, "https://017700000001/in", false},
		{"short 127.1", prod, "https://127.1/in", false},
		{"octal dotted 0177.0.0.1", prod, "https://0177.0.0.1/in", false},
		{"zero padded 010.0.0.1", prod, "https://010.0.0.1/in", false},
		{"hex dotted 0x7f.0.0.1", prod, "https://0x7f.0.0.1/in", false},
		{"numeric even when private allowed", private, "http://2130706433/in", false},
		{"percent-encoded 127.0.0.1", prod, "https://%31%32%37.0.0.1/in", false},
		{"name resolving to 127.0.0.1", prod, "https://loopback.example.com/in", false},
		{"name with one private answer", prod, "https://mixed.example.com/in", false},
		{"unknown name", prod, "https://nowhere.example.com/in", false},
		{"private allowed", private, "http://127.0.0.1:8080/in", true},
		{"localhost allowed", private, "http://localhost:8080/in", true},
		{"private allowed still refuses userinfo", private, "http://u@127.0.0.1/in", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := tt.policy.CheckURL(context.Background(), tt.url)
			if tt.ok {
				if err != nil {
					t.Fatalf("CheckURL(%q): %v", tt.url, err)
				}
				if got != tt.url {
					t.Fatalf("CheckURL changed the URL to %q", got)
				}
				return
			}
			if err == nil {
				t.Fatalf("CheckURL(%q) accepted it", tt.url)
			}
			var e *skygate.Error
			if !errors.As(err, &e) || e.Code != skygate.CodeValidation || len(e.Fields) != 1 || e.Fields[0].Field != "url" {
				t.Fatalf("CheckURL(%q) error = %#v, want a ValidationFailed error on url", tt.url, err)
			}
		})
	}
}

func TestCheckAddr(t *testing.T) {
	t.Parallel()
	tests := []struct {
		addr string
		ok   bool
	}{
		{"93.184.216.34", true}, {"8.8.8.8", true}, {"2606:4700:4700::1111", true},
		{"64:ff9b::808:808", true}, {"2002:808:808::1", true}, {"::ffff:8.8.8.8", true},
		{"127.0.0.1", false}, {"10.0.0.1", false}, {"172.16.5.4", false}, {"192.168.0.1", false},
		{"169.254.169.254", false}, {"100.64.0.1", false}, {"100.127.255.255", false},
		{"0.0.0.0", false}, {"224.0.0.251", false}, {"240.0.0.1", false}, {"198.18.0.1", false},
		{"::1", false}, {"::", false}, {"::ffff:10.0.0.1", false}, {"::ffff:169.254.169.254", false},
		{"::7f00:1", false}, {"fc00::1", false}, {"fd12:3456::1", false}, {"fe80::1", false},
		{"fec0::1", false}, {"ff02::1", false}, {"2001:db8::1", false}, {"2001::1", false},
		{"64:ff9b::a00:1", false}, {"2002:a00:1::1", false}, {"100::1", false},
	}
	for _, tt := range tests {
		err := webhook.CheckAddr(netip.MustParseAddr(tt.addr))
		if (err == nil) != tt.ok {
			t.Errorf("CheckAddr(%s) = %v, want ok=%v", tt.addr, err, tt.ok)
		}
		if err != nil && !errors.Is(err, webhook.ErrAddressNotAllowed) {
			t.Errorf("CheckAddr(%s) error %v does not wrap ErrAddressNotAllowed", tt.addr, err)
		}
	}
}

// TestClientRefusesAtConnectTime uses a name whose DNS answer changes after
// registration: CheckURL sees a public address, the connection would go to
// 127.0.0.1, and the client refuses it without reaching the receiver.
func TestClientRefusesAtConnectTime(t *testing.T) {
	t.Parallel()
	rc := newReceiver(t, nil)
	port := rc.Listener.Addr().(interface{ AddrPort() netip.AddrPort }).AddrPort().Port()
	resolver := testResolver()
	url := "http://rebind.example.com:" + strconv.Itoa(int(port)) + "/in"
	policy := webhook.Policy{AllowHTTP: true, Resolver: resolver}
	if _, err := policy.CheckURL(context.Background(), url); err != nil {
		t.Fatalf("CheckURL at registration: %v", err)
	}
	client := webhook.NewClient(webhook.ClientOptions{Resolver: resolver})
	for _, target := range []string{url, rc.URL + "/direct-ip"} {
		resp, err := client.Post(target, "application/json", strings.NewReader("{}"))
		if err == nil {
			resp.Body.Close()
			t.Fatalf("POST %s reached the receiver (%d)", target, resp.StatusCode)
		}
		if !errors.Is(err, webhook.ErrAddressNotAllowed) {
			t.Fatalf("POST %s error = %v, want ErrAddressNotAllowed", target, err)
		}
	}
	if n := len(rc.requests()); n != 0 {
		t.Fatalf("the receiver got %d requests", n)
	}

	// The same client with AllowPrivate reaches it: the refusal was the address rule.
	open := webhook.NewClient(webhook.ClientOptions{AllowPrivate: true, Resolver: resolver})
	resp, err := open.Post(url, "application/json", strings.NewReader("{}"))
	if err != nil {
		t.Fatalf("POST with AllowPrivate: %v", err)
	}
	resp.Body.Close()
}

func TestClientDoesNotFollowRedirects(t *testing.T) {
	t.Parallel()
	target := newReceiver(t, nil)
	rc := newReceiver(t, func(w http.ResponseWriter, _ *request, _ int) {
		w.Header().Set("Location", target.URL+"/elsewhere")
		w.WriteHeader(http.StatusTemporaryRedirect)
	})
	client := webhook.NewClient(webhook.ClientOptions{AllowPrivate: true})
	resp, err := client.Post(rc.URL, "application/json", strings.NewReader("{}"))
	if err != nil {
		t.Fatalf("POST: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusTemporaryRedirect {
		t.Fatalf("status = %d, want the 307 itself", resp.StatusCode)
	}
	if n := len(target.requests()); n != 0 {
		t.Fatalf("the redirect target got %d requests", n)
	}
}
