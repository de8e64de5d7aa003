package httpapi

import (
	"crypto/subtle"
	"encoding/json"
	"errors"
	"mime"
	"net"
	"net/http"
	"strings"
)

// legacyCookie is the cookie earlier versions kept the token in. A
// browser sends cookies to every port of a host, so a request that still
// carries it is answered with its deletion.
const legacyCookie = "openseek_token"

// guard checks every request before a route sees it: the Host header
// (DNS rebinding), that a request that changes something comes from this
// app's own origin with a JSON body, then the token. A GET outside /v1/
// without an Authorization header gets the page shell, which holds no
// data.
func (s *Server) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("X-Content-Type-Options", "nosniff")
		if !s.hostAllowed(r) {
			writeError(w, http.StatusForbidden, "the Host header "+quote(r.Host)+" does not name this server on a loopback address; open it as http://127.0.0.1:PORT or http://localhost:PORT")
			return
		}
		if _, err := r.Cookie(legacyCookie); err == nil {
			http.SetCookie(w, &http.Cookie{Name: legacyCookie, Path: "/", MaxAge: -1, HttpOnly: true, SameSite: http.SameSiteStrictMode})
		}
		if !safeMethod(r.Method) {
			if err := crossOrigin(r); err != nil {
				writeError(w, http.StatusForbidden, err.Error())
				return
			}
			if !jsonBody(r) {
				writeError(w, http.StatusUnsupportedMediaType, r.Method+" needs Content-Type: application/json (got "+quote(r.Header.Get("Content-Type"))+"); with curl, use --json")
				return
			}
		}
		if r.Header.Get("Authorization") == "" && (r.Method == http.MethodGet || r.Method == http.MethodHead) && !strings.HasPrefix(r.URL.Path, "/v1/") {
			s.o.Shell.ServeHTTP(w, r)
			return
		}
		if !s.authorized(r) {
			h.Set("WWW-Authenticate", `Bearer realm="openseek"`)
			writeError(w, http.StatusUnauthorized, "missing or wrong token: send Authorization: Bearer <token> (the token is $OPENSEEK_HTTP_TOKEN or ~/.openseek/run/http-token), or open the URL the server printed")
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, MaxBody)
		next.ServeHTTP(w, r)
	})
}

func safeMethod(m string) bool {
	return m == http.MethodGet || m == http.MethodHead || m == http.MethodOptions
}

// crossOrigin refuses a request a browser sent from another origin: a
// page of another program on another port of 127.0.0.1 is same-site but
// cross-origin. Sec-Fetch-Site must then be same-origin and an Origin
// header must be this server (Origin: null, from a sandboxed frame or a
// file, is refused). A request with neither header is not from a browser
// (curl, the terminal UI) and is left to the token.
func crossOrigin(r *http.Request) error {
	if site := r.Header.Get("Sec-Fetch-Site"); site != "" && site != "same-origin" {
		return errors.New("refused a request from another site or origin (Sec-Fetch-Site: " + site + "): only this server's own pages may change sessions")
	}
	if o := r.Header.Get("Origin"); o != "" && o != "http://"+r.Host && o != "https://"+r.Host {
		return errors.New("refused a request from origin " + quote(o) + ": only this server's own pages may change sessions")
	}
	return nil
}

// jsonBody reports whether r declares a JSON body. A browser cannot send
// that type to another origin without a preflight (which gets no CORS
// answer here), unlike the text/plain of a form or a no-cors fetch.
func jsonBody(r *http.Request) bool {
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	return err == nil && mt == "application/json"
}

// authorized reports whether r carries the token as a Bearer header.
func (s *Server) authorized(r *http.Request) bool {
	scheme, tok, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	return ok && strings.EqualFold(scheme, "Bearer") && s.tokenOK(strings.TrimSpace(tok))
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
