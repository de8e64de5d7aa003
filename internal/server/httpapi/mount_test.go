package httpapi

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// Mounted routes answer behind the same token as the API's own; a path
// they do not have still gets the API's 404; read-only mode leaves them
// out.
func TestMountedRoutes(t *testing.T) {
	mount := func(mux *http.ServeMux) {
		mux.HandleFunc("GET /v1/tasks/{id}", func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprintf(w, "task %s", r.PathValue("id"))
		})
	}
	f := start(t, nil, setup{mount: mount})
	ro := start(t, nil, setup{mount: mount, readOnly: true})
	tests := []struct {
		f          *fixture
		path, auth string
		code       int
		body       string
	}{
		{f, "/v1/tasks/t1", "Bearer " + testToken, http.StatusOK, "task t1"},
		{f, "/v1/tasks/t1", "", http.StatusUnauthorized, "missing or wrong token"},
		{f, "/v1/tasks/t1", "Bearer wrong", http.StatusUnauthorized, "missing or wrong token"},
		{f, "/v1/nothing", "Bearer " + testToken, http.StatusNotFound, "no API route"},
		{ro, "/v1/tasks/t1", "Bearer " + testToken, http.StatusNotFound, "no API route"},
	}
	for _, tc := range tests {
		code, body, _ := tc.f.do("GET", tc.path, "", "Authorization", tc.auth)
		if code != tc.code || !strings.Contains(body, tc.body) {
			t.Errorf("GET %s (auth %q) = %d %q; want %d %q", tc.path, tc.auth, code, body, tc.code, tc.body)
		}
	}
}
