//go:build !unix

package fleet

import "errors"

func lockDir(string) (func(), error) {
	return nil, errors.New("the embedded fleet server needs a Unix system here; run a NATS server and pass --nats URL")
}
