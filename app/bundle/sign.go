package bundle

import (
	"bytes"
	"crypto"
	"crypto/sha256"
	"crypto/subtle"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/asn1"
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
	// The signature over the content (its message digest attribute, then
	// the signer's signature over the attributes as sent), then the chain
	// at now for code signing: the library's own chain check accepts any
	// key usage.
	if why := checkSignerInfo(p7, der, signer, content); why != "" {
		s.Why = why
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

// The parts of a PKCS#7 SignedData read here as sent: the library
// re-encodes the signed attributes in DER order before checking the
// signature over them, and node-forge (the official CLI's signer) signs
// them in the order it was given, so its signatures only verify over the
// attributes' own bytes (as OpenSSL checks them).
type rawContentInfo struct {
	ContentType asn1.ObjectIdentifier
	Content     asn1.RawValue `asn1:"explicit,tag:0"`
}

type rawSignedData struct {
	Version          int
	DigestAlgorithms asn1.RawValue
	ContentInfo      asn1.RawValue
	Certificates     asn1.RawValue   `asn1:"optional,tag:0"`
	CRLs             asn1.RawValue   `asn1:"optional,tag:1"`
	SignerInfos      []rawSignerInfo `asn1:"set"`
}

type rawSignerInfo struct {
	Version                   int
	IssuerAndSerial           asn1.RawValue
	DigestAlgorithm           pkix.AlgorithmIdentifier
	AuthenticatedAttributes   asn1.RawValue `asn1:"optional,tag:0"`
	DigestEncryptionAlgorithm pkix.AlgorithmIdentifier
	EncryptedDigest           []byte
	UnauthenticatedAttributes asn1.RawValue `asn1:"optional,tag:1"`
}

var (
	oidSHA256 = asn1.ObjectIdentifier{2, 16, 840, 1, 101, 3, 4, 2, 1}
	oidSHA384 = asn1.ObjectIdentifier{2, 16, 840, 1, 101, 3, 4, 2, 2}
	oidSHA512 = asn1.ObjectIdentifier{2, 16, 840, 1, 101, 3, 4, 2, 3}
	// digestEncryptionAlgorithm: the key's algorithm, or a signature
	// algorithm naming the hash too.
	oidRSA             = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 1, 1}
	oidSHA256WithRSA   = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 1, 11}
	oidSHA384WithRSA   = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 1, 12}
	oidSHA512WithRSA   = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 1, 13}
	oidECPublicKey     = asn1.ObjectIdentifier{1, 2, 840, 10045, 2, 1}
	oidECDSAWithSHA256 = asn1.ObjectIdentifier{1, 2, 840, 10045, 4, 3, 2}
	oidECDSAWithSHA384 = asn1.ObjectIdentifier{1, 2, 840, 10045, 4, 3, 3}
	oidECDSAWithSHA512 = asn1.ObjectIdentifier{1, 2, 840, 10045, 4, 3, 4}
)

// checkSignerInfo is why the one signer's signature does not hold for
// content, or "": the signed attributes' message digest is content's, and
// the signer's key signed the attributes' own bytes.
func checkSignerInfo(p7 *pkcs7.PKCS7, der []byte, signer *x509.Certificate, content []byte) string {
	var ci rawContentInfo
	var sd rawSignedData
	if _, err := asn1.Unmarshal(der, &ci); err != nil {
		return fmt.Sprintf("the signature cannot be read (%v)", err)
	}
	if _, err := asn1.Unmarshal(ci.Content.Bytes, &sd); err != nil {
		return fmt.Sprintf("the signature cannot be read (%v)", err)
	}
	if len(sd.SignerInfos) != 1 || len(p7.Signers) != 1 {
		return fmt.Sprintf("the signature has %d signers: a bundle has one", len(sd.SignerInfos))
	}
	si := sd.SignerInfos[0]
	if len(si.AuthenticatedAttributes.FullBytes) == 0 {
		return "the signature has no signed attributes (the official CLI always writes them)"
	}
	var hash crypto.Hash
	switch alg := si.DigestAlgorithm.Algorithm; {
	case alg.Equal(oidSHA256):
		hash = crypto.SHA256
	case alg.Equal(oidSHA384):
		hash = crypto.SHA384
	case alg.Equal(oidSHA512):
		hash = crypto.SHA512
	default:
		return fmt.Sprintf("the signature's digest algorithm %v is not SHA-256, SHA-384 or SHA-512", alg)
	}
	var digest []byte
	if err := p7.UnmarshalSignedAttribute(pkcs7.OIDAttributeMessageDigest, &digest); err != nil {
		return fmt.Sprintf("the signature has no message digest (%v)", err)
	}
	h := hash.New()
	h.Write(content)
	if subtle.ConstantTimeCompare(h.Sum(nil), digest) != 1 {
		return "the bundle's bytes do not match its signature: it was changed after signing"
	}
	var sigAlg x509.SignatureAlgorithm
	rsa := map[crypto.Hash]x509.SignatureAlgorithm{crypto.SHA256: x509.SHA256WithRSA, crypto.SHA384: x509.SHA384WithRSA, crypto.SHA512: x509.SHA512WithRSA}
	ec := map[crypto.Hash]x509.SignatureAlgorithm{crypto.SHA256: x509.ECDSAWithSHA256, crypto.SHA384: x509.ECDSAWithSHA384, crypto.SHA512: x509.ECDSAWithSHA512}
	switch alg := si.DigestEncryptionAlgorithm.Algorithm; {
	case alg.Equal(oidRSA), alg.Equal(oidSHA256WithRSA), alg.Equal(oidSHA384WithRSA), alg.Equal(oidSHA512WithRSA):
		sigAlg = rsa[hash]
	case alg.Equal(oidECPublicKey), alg.Equal(oidECDSAWithSHA256), alg.Equal(oidECDSAWithSHA384), alg.Equal(oidECDSAWithSHA512):
		sigAlg = ec[hash]
	default:
		return fmt.Sprintf("the signature's algorithm %v is not RSA or ECDSA", alg)
	}
	// The attributes are signed as a SET, sent as [0] IMPLICIT.
	signed := bytes.Clone(si.AuthenticatedAttributes.FullBytes)
	signed[0] = 0x31
	if err := signer.CheckSignature(sigAlg, signed, si.EncryptedDigest); err != nil {
		return fmt.Sprintf("the signer's signature does not verify (%v)", err)
	}
	return ""
}
