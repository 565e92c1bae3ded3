package gateway

// The Windows helpers of listen_windows_test.go, for the package's external
// tests (bridge_windows_test.go).
var (
	TakeFirstInstance = takeFirstInstance
	TempDir           = testTempDir
)
