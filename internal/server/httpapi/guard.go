package httpapi

import (
	"crypto/subtle"
	"encoding/json"
	"net"
	"net/http"
	"strings"
)

// CookieName is the cookie that carries the token for browser pages.
const CookieName = "openseek_token"

// guard checks the Host header, then the token, in front of every route.
func (s *Server) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !s.hostAllowed(r) {
			writeError(w, http.StatusForbidden, "the Host header "+quote(r.Host)+" does not name this server on a loopback address; open it as http://127.0.0.1:PORT or http://localhost:PORT")
			return
		}
		if tok := r.URL.Query().Get("token"); tok != "" && r.Method == http.MethodGet && !strings.HasPrefix(r.URL.Path, "/v1/") {
			if !s.tokenOK(tok) {
				writeError(w, http.StatusUnauthorized, "the token in the URL is wrong; use the URL `openseek serve --http` printed")
				return
			}
			// The token leaves the address bar (and history) at once and
			// lives on in a cookie no script can read.
			http.SetCookie(w, &http.Cookie{Name: CookieName, Value: tok, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode})
			u := *r.URL
			q := u.Query()
			q.Del("token")
			u.RawQuery = q.Encode()
			u.Scheme, u.Host = "", ""
			http.Redirect(w, r, u.RequestURI(), http.StatusSeeOther)
			return
		}
		if !s.authorized(r) {
			w.Header().Set("WWW-Authenticate", `Bearer realm="openseek"`)
			writeError(w, http.StatusUnauthorized, "missing or wrong token: send Authorization: Bearer <token> (the token is $OPENSEEK_HTTP_TOKEN or ~/.openseek/run/http-token), or open the URL the server printed")
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, MaxBody)
		next.ServeHTTP(w, r)
	})
}

// authorized reports whether r carries the token, as a Bearer header or
// the cookie.
func (s *Server) authorized(r *http.Request) bool {
	if h := r.Header.Get("Authorization"); h != "" {
		scheme, tok, ok := strings.Cut(h, " ")
		return ok && strings.EqualFold(scheme, "Bearer") && s.tokenOK(strings.TrimSpace(tok))
	}
	if c, err := r.Cookie(CookieName); err == nil {
		return s.tokenOK(c.Value)
	}
	return false
}

func (s *Server) tokenOK(tok string) bool {
	return s.o.Token != "" && subtle.ConstantTimeCompare([]byte(tok), []byte(s.o.Token)) == 1
}

// hostAllowed is the DNS-rebinding check: a page of another site that
// made its name resolve to 127.0.0.1 still sends its own name as Host.
func (s *Server) hostAllowed(r *http.Request) bool {
	host, port, err := net.SplitHostPort(r.Host)
	if err != nil {
		host, port = r.Host, "80"
	}
	if la, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr); ok {
		if _, lport, err := net.SplitHostPort(la.String()); err == nil && lport != port {
			return false
		}
	}
	return s.o.AllowRemote || loopbackName(strings.Trim(host, "[]"))
}

type errorBody struct {
	Error string `json:"error"`
}

// writeError answers {"error": msg} with status.
func writeError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, errorBody{Error: msg})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	data, err := json.Marshal(v)
	if err != nil {
		status, data = http.StatusInternalServerError, []byte(`{"error":"encode the answer: `+err.Error()+`"}`)
	}
	writeRaw(w, status, data)
}

func writeRaw(w http.ResponseWriter, status int, data []byte) {
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	w.Write(data)
	w.Write([]byte("\n"))
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
