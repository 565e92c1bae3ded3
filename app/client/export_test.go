package client

// SetAPIVersion makes this program speak API v until restore.
func SetAPIVersion(v string) (restore func()) {
	old := apiVersion
	apiVersion = v
	return func() { apiVersion = old }
}
