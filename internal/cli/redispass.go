package cli

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"
)

// A Redis store's password does not belong on the command line, which
// every user of the machine can read (ps, /proc/PID/cmdline). dedup takes
// it, for a --store URL that has none, from the first line of
// --redis-password-file FILE, or else from the environment variable
// $URISCAN_REDIS_PASSWORD (/proc/PID/environ is readable by its owner
// only), as redis-cli takes REDISCLI_AUTH. A password in the URL wins over
// both, and the file over the variable.

// envRedisPassword is the environment variable that holds the password
// of a Redis store whose URL has none, when no --redis-password-file is
// given.
const envRedisPassword = "URISCAN_REDIS_PASSWORD"

// maxPasswordLine bounds the first line of a --redis-password-file: a
// longer one is not a password, and is not read to its end.
const maxPasswordLine = 64 << 10

// redisPassword returns the password for a Redis store whose URL has none
// (StoreOptions.Password): with file, the first line of the file, its line
// end ("\n" or "\r\n") trimmed and nothing else; without, the value of
// $URISCAN_REDIS_PASSWORD as getenv (os.Getenv) gives it, "" when unset.
// The file's first line must not be empty, nor longer than 64 KiB; "-"
// (standard input, the command's input) is refused. Its errors name the
// file and never hold what it read. A file that other users may read is
// taken all the same (a secret mounted by a container runtime often is,
// in a directory that keeps them out): redisPasswordWarning says so.
func redisPassword(file string, getenv func(string) string) (string, error) {
	if file == "" {
		return getenv(envRedisPassword), nil
	}
	if file == "-" {
		return "", errors.New("--redis-password-file -: standard input is the command's input; name a file (or a pipe: /dev/fd/N, <(command))")
	}
	f, err := os.Open(file)
	if err != nil {
		return "", fmt.Errorf("--redis-password-file: %w", err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxPasswordLine+2))
	if err != nil {
		return "", fmt.Errorf("--redis-password-file %s: %w", file, err)
	}
	line, _, found := bytes.Cut(b, []byte("\n"))
	line = bytes.TrimSuffix(line, []byte("\r"))
	switch {
	case !found && len(b) > maxPasswordLine, len(line) > maxPasswordLine:
		return "", fmt.Errorf("--redis-password-file %s: the first line is longer than %d KiB: not a password", file, maxPasswordLine>>10)
	case len(line) == 0:
		return "", fmt.Errorf("--redis-password-file %s: the first line is empty; the file holds the password on its first line", file)
	}
	return string(line), nil
}

// redisPasswordWarning returns a warning (without "uriscan: ") when the
// --redis-password-file file is a regular file that users other than its
// owner may read (permission bits for group or others, on unix), ""
// otherwise. A run goes on after it.
func redisPasswordWarning(file string) string {
	if file == "" || file == "-" || runtime.GOOS == "windows" {
		return ""
	}
	fi, err := os.Stat(file)
	if err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm()&0o044 == 0 {
		return ""
	}
	return "warning: --redis-password-file " + file + " may be read by users other than its owner (mode 0" +
		strconv.FormatUint(uint64(fi.Mode().Perm()), 8) + "); unless its directory keeps them out: chmod go-r " + file
}
