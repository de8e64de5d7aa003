package llm_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"

	"github.com/openseek/openseek/internal/llm"
)

// A redirect within the endpoint's origin is followed with the body and
// header; one to another origin is refused before anything is sent there.
func TestEndpointRedirects(t *testing.T) {
	var elsewhere int
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { elsewhere++ }))
	defer other.Close()
	var gotBody, gotKey string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/old":
			http.Redirect(w, r, "/new", http.StatusTemporaryRedirect)
		case "/away":
			http.Redirect(w, r, other.URL+"/x", http.StatusPermanentRedirect)
		case "/new":
			b, _ := io.ReadAll(r.Body)
			gotBody, gotKey = string(b), r.Header.Get("X-Api-Key")
		}
	}))
	defer srv.Close()
	h := http.Header{"X-Api-Key": {"secret"}}
	post := func(path string) (*http.Response, error) {
		u, _ := url.Parse(srv.URL + path)
		return llm.NewEndpoint(u, h, nil).Post(context.Background(), llm.BodyOf([]byte(`{"a":1}`)))
	}
	res, err := post("/old")
	if err != nil || res.StatusCode != http.StatusOK || gotBody != `{"a":1}` || gotKey != "secret" {
		t.Fatalf("same-origin redirect: %v %v, body %q, key %q", res, err, gotBody, gotKey)
	}
	res.Body.Close()
	_, err = post("/away")
	var re *llm.RedirectError
	if !errors.As(err, &re) || elsewhere != 0 {
		t.Errorf("cross-origin redirect: err %v, %d requests elsewhere", err, elsewhere)
	}
}

func TestSDKHeader(t *testing.T) {
	h := llm.SDKHeader("OpenAI", "1.2.3")
	for k, want := range map[string]string{
		"User-Agent": "OpenAI/Go 1.2.3", "X-Stainless-Package-Version": "1.2.3", "Accept": "text/event-stream",
		"Content-Type": "application/json", "X-Stainless-Lang": "go", "X-Stainless-Retry-Count": "0",
	} {
		if got := h.Get(k); got != want {
			t.Errorf("%s = %q, want %q", k, got, want)
		}
	}
}
