package bundle

import (
	"bytes"
	"crypto/sha256"
	"crypto/x509"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/smallstep/pkcs7"
)

// The signature block the official CLI (mcpb sign) appends to a bundle:
// header, the DER PKCS#7 SignedData's length as 4 bytes little-endian, the
// DER, footer. The signature is detached: its content is the bundle's
// bytes before the header.
const (
	sigHeader = "MCPB_SIG_V1"
	sigFooter = "MCPB_SIG_END"
	// maxSigBlock bounds the block looked for at the file's end; a
	// certificate chain of a few certificates is a few kilobytes.
	maxSigBlock = 1 << 20
)

// FileSHA256 is the hex SHA-256 of the file at path as it was downloaded,
// signature block included: what a registry's fileSha256 names.
func FileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// zipPart is the length of the zip in f (the file before its signature
// block, or all of it) and the signature's DER (nil when unsigned). A file
// that ends with the footer but holds no well-formed block is an error.
func zipPart(f *os.File) (int64, []byte, error) {
	st, err := f.Stat()
	if err != nil {
		return 0, nil, err
	}
	size := st.Size()
	tail := make([]byte, min(size, maxSigBlock))
	if _, err := f.ReadAt(tail, size-int64(len(tail))); err != nil {
		return 0, nil, err
	}
	if !bytes.HasSuffix(tail, []byte(sigFooter)) {
		return size, nil, nil
	}
	body := tail[:len(tail)-len(sigFooter)]
	// the header whose length field reaches exactly the footer
	for i := bytes.LastIndex(body, []byte(sigHeader)); i >= 0; i = bytes.LastIndex(body[:i], []byte(sigHeader)) {
		start := i + len(sigHeader)
		if start+4 > len(body) {
			continue
		}
		n := binary.LittleEndian.Uint32(body[start:])
		if int64(start)+4+int64(n) == int64(len(body)) {
			der := body[start+4:]
			return size - int64(len(tail)-i), der, nil
		}
	}
	return 0, nil, errors.New("the file ends with " + sigFooter + " but holds no well-formed signature block: it is damaged; download it again")
}

// SignatureState is a bundle's signature verdict.
type SignatureState string

const (
	Unsigned SignatureState = "unsigned"
	Signed   SignatureState = "signed"
	Invalid  SignatureState = "invalid"
)

// Signature is what Verify found.
type Signature struct {
	State SignatureState
	// SHA256 is the hex SHA-256 of the whole file (see FileSHA256).
	SHA256 string
	// Signer's subject (Signed, and Invalid when the signature parsed).
	CommonName, Organization string
	// Fingerprint is the hex SHA-256 of the signer's certificate.
	Fingerprint string
	// Why is the reason an Invalid signature is invalid.
	Why string
}

// Verify reads the bundle at path: its SHA-256 and its signature, verified
// against roots (the system's when nil) at now (the current time when
// zero). A signature that does not match the bundle's bytes, does not chain
// to a root, is not for code signing, or is damaged is Invalid with why;
// only a failure to read the file is an error.
func Verify(path string, roots *x509.CertPool, now time.Time) (Signature, error) {
	sum, err := FileSHA256(path)
	if err != nil {
		return Signature{}, err
	}
	s := Signature{SHA256: sum}
	f, err := os.Open(path)
	if err != nil {
		return s, err
	}
	defer f.Close()
	size, der, err := zipPart(f)
	if err != nil {
		s.State, s.Why = Invalid, err.Error()
		return s, nil
	}
	if der == nil {
		s.State = Unsigned
		return s, nil
	}
	s.State = Invalid
	p7, err := pkcs7.Parse(der)
	if err != nil {
		s.Why = fmt.Sprintf("the signature is not PKCS#7 SignedData (%v)", err)
		return s, nil
	}
	signer := p7.GetOnlySigner()
	if signer == nil {
		s.Why = "the signature has no single signer certificate"
		return s, nil
	}
	s.CommonName = signer.Subject.CommonName
	s.Organization = strings.Join(signer.Subject.Organization, ", ")
	fp := sha256.Sum256(signer.Raw)
	s.Fingerprint = hex.EncodeToString(fp[:])
	content := make([]byte, size)
	if _, err := f.ReadAt(content, 0); err != nil {
		return s, err
	}
	if len(p7.Content) != 0 && !bytes.Equal(p7.Content, content) {
		s.Why = "the signature carries content other than this bundle"
		return s, nil
	}
	p7.Content = content
	if roots == nil {
		if roots, err = x509.SystemCertPool(); err != nil {
			s.Why = fmt.Sprintf("the system's root certificates cannot be read (%v)", err)
			return s, nil
		}
	}
	if now.IsZero() {
		now = time.Now()
	}
	// The signature over the content, then the chain at now for code
	// signing: the library's own chain check accepts any key usage.
	if err := p7.Verify(); err != nil {
		var mismatch *pkcs7.MessageDigestMismatchError
		if errors.As(err, &mismatch) {
			s.Why = "the bundle's bytes do not match its signature: it was changed after signing"
		} else {
			s.Why = fmt.Sprintf("the signature does not verify (%v)", err)
		}
		return s, nil
	}
	inter := x509.NewCertPool()
	for _, c := range p7.Certificates {
		inter.AddCert(c)
	}
	if _, err := signer.Verify(x509.VerifyOptions{
		Roots: roots, Intermediates: inter, CurrentTime: now,
		KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageCodeSigning},
	}); err != nil {
		s.Why = fmt.Sprintf("the signer's certificate is not trusted for code signing (%v)", err)
		return s, nil
	}
	s.State, s.Why = Signed, ""
	return s, nil
}
