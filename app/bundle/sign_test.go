package bundle

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/asn1"
	"encoding/binary"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/smallstep/pkcs7"
)

// testCA is a root and a code-signing leaf made in the test.
type testCA struct {
	root, leaf *x509.Certificate
	leafKey    *ecdsa.PrivateKey
	pool       *x509.CertPool
}

func newTestCA(t *testing.T, leafUsage x509.ExtKeyUsage) testCA {
	t.Helper()
	rootKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	now := time.Now()
	rootTmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "Test Root CA"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	rootDER, err := x509.CreateCertificate(rand.Reader, rootTmpl, rootTmpl, &rootKey.PublicKey, rootKey)
	if err != nil {
		t.Fatal(err)
	}
	root, _ := x509.ParseCertificate(rootDER)
	leafKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	leafTmpl := &x509.Certificate{
		SerialNumber: big.NewInt(2),
		Subject:      pkix.Name{CommonName: "Acme Bundles", Organization: []string{"Acme Corp"}},
		NotBefore:    now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{leafUsage},
	}
	leafDER, err := x509.CreateCertificate(rand.Reader, leafTmpl, root, &leafKey.PublicKey, rootKey)
	if err != nil {
		t.Fatal(err)
	}
	leaf, _ := x509.ParseCertificate(leafDER)
	pool := x509.NewCertPool()
	pool.AddCert(root)
	return testCA{root: root, leaf: leaf, leafKey: leafKey, pool: pool}
}

// sign appends a signature block as the official CLI's signMcpbFile
// writes it: header, length (uint32 LE), detached PKCS#7 DER, footer.
func (ca testCA) sign(t *testing.T, content []byte) []byte {
	return ca.signWith(t, content, pkcs7.OIDDigestAlgorithmSHA256)
}

func (ca testCA) signWith(t *testing.T, content []byte, digest asn1.ObjectIdentifier) []byte {
	t.Helper()
	sd, err := pkcs7.NewSignedData(content)
	if err != nil {
		t.Fatal(err)
	}
	sd.SetDigestAlgorithm(digest)
	if err := sd.AddSigner(ca.leaf, ca.leafKey, pkcs7.SignerInfoConfig{}); err != nil {
		t.Fatal(err)
	}
	sd.Detach()
	der, err := sd.Finish()
	if err != nil {
		t.Fatal(err)
	}
	out := append(bytes.Clone(content), sigHeader...)
	out = binary.LittleEndian.AppendUint32(out, uint32(len(der)))
	out = append(out, der...)
	return append(out, sigFooter...)
}

func writeFile(t *testing.T, b []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "b.mcpb")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestVerify: a bundle signed by a leaf of a trusted CA is signed (by
// whom); the same bundle with one byte of the zip changed is invalid; the
// bare zip is unsigned; a signer the roots do not know, a leaf not for
// code signing and a damaged block are invalid. The signed bundle still
// unpacks (the block is not part of the zip).
func TestVerify(t *testing.T) {
	ca := newTestCA(t, x509.ExtKeyUsageCodeSigning)
	zipped := zipBytes(t, []entry{{name: "manifest.json", body: goodManifest}, {name: "server/index.js", body: "console.log(1)"}})
	signed := ca.sign(t, zipped)

	p := writeFile(t, signed)
	s, err := Verify(p, ca.pool, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	if s.State != Signed || s.CommonName != "Acme Bundles" || s.Organization != "Acme Corp" || s.Fingerprint == "" {
		t.Fatalf("signed bundle: %+v", s)
	}
	if sum, _ := FileSHA256(p); s.SHA256 != sum || len(sum) != 64 {
		t.Fatalf("SHA256 %q, FileSHA256 %q", s.SHA256, sum)
	}
	if err := Unpack(p, filepath.Join(t.TempDir(), "demo", "1"), DefaultLimits); err != nil {
		t.Fatalf("a signed bundle does not unpack: %v", err)
	}

	tampered := bytes.Clone(signed)
	tampered[len(zipped)/2] ^= 0x01 // one byte of the zip
	s, err = Verify(writeFile(t, tampered), ca.pool, time.Time{})
	if err != nil || s.State != Invalid || !strings.Contains(s.Why, "changed after signing") {
		t.Fatalf("tampered bundle: %+v, %v", s, err)
	}

	s, err = Verify(writeFile(t, zipped), ca.pool, time.Time{})
	if err != nil || s.State != Unsigned {
		t.Fatalf("unsigned bundle: %+v, %v", s, err)
	}

	other := newTestCA(t, x509.ExtKeyUsageCodeSigning)
	s, err = Verify(p, other.pool, time.Time{})
	if err != nil || s.State != Invalid || !strings.Contains(s.Why, "not trusted") || s.CommonName != "Acme Bundles" {
		t.Fatalf("signer of an unknown CA: %+v, %v", s, err)
	}

	tls := newTestCA(t, x509.ExtKeyUsageServerAuth)
	s, err = Verify(writeFile(t, tls.sign(t, zipped)), tls.pool, time.Time{})
	if err != nil || s.State != Invalid || !strings.Contains(s.Why, "code signing") {
		t.Fatalf("leaf for TLS only: %+v, %v", s, err)
	}

	s, err = Verify(p, ca.pool, time.Now().Add(48*time.Hour))
	if err != nil || s.State != Invalid || !strings.Contains(s.Why, "not trusted") {
		t.Fatalf("expired certificate: %+v, %v", s, err)
	}

	s, err = Verify(writeFile(t, ca.signWith(t, zipped, pkcs7.OIDDigestAlgorithmSHA1)), ca.pool, time.Time{})
	if err != nil || s.State != Invalid || !strings.Contains(s.Why, "digest algorithm 1.3.14.3.2.26 is not SHA-256") {
		t.Fatalf("SHA-1 signature: %+v, %v", s, err)
	}

	forged := bytes.Clone(signed)
	forged[len(forged)-len(sigFooter)-1] ^= 0x01 // the last byte of the signer's signature
	s, err = Verify(writeFile(t, forged), ca.pool, time.Time{})
	if err != nil || s.State != Invalid || !strings.Contains(s.Why, "the signer's signature does not verify") {
		t.Fatalf("signature bytes changed: %+v, %v", s, err)
	}

	damaged := bytes.Clone(signed)
	binary.LittleEndian.PutUint32(damaged[len(zipped)+len(sigHeader):], 7)
	s, err = Verify(writeFile(t, damaged), ca.pool, time.Time{})
	if err != nil || s.State != Invalid || !strings.Contains(s.Why, "no well-formed signature block") {
		t.Fatalf("damaged block: %+v, %v", s, err)
	}
}

// TestVerifyOfficialCLI: a bundle packed and signed by the official CLI
// (@anthropic-ai/mcpb 2.1.2, `mcpb pack` then `mcpb sign --cert --key`,
// node-forge's PKCS#7 with an RSA leaf for code signing under a test root
// made with openssl; its own `mcpb verify` calls it "not signed") verifies
// as signed against that root, and unpacks; one byte of its zip changed
// makes it invalid. The chain is checked in 2030, inside the certificates'
// ten years, so the test does not expire.
func TestVerifyOfficialCLI(t *testing.T) {
	pemBytes, err := os.ReadFile("testdata/official-ca.pem")
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pemBytes) {
		t.Fatal("testdata/official-ca.pem holds no certificate")
	}
	at := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	const path = "testdata/official-signed.mcpb"
	s, err := Verify(path, pool, at)
	if err != nil || s.State != Signed || s.CommonName != "Acme Signer" || s.Organization != "Acme Corp" {
		t.Fatalf("official bundle: %+v, %v", s, err)
	}
	if err := Unpack(path, filepath.Join(t.TempDir(), "hello", "1.0.0"), DefaultLimits); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	b[100] ^= 0x01
	s, err = Verify(writeFile(t, b), pool, at)
	if err != nil || s.State != Invalid || !strings.Contains(s.Why, "changed after signing") {
		t.Fatalf("official bundle changed: %+v, %v", s, err)
	}
}
