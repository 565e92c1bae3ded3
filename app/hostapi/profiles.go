package hostapi

// ProfileEntry is one profile as written. Servers null (nil) means every
// server; an empty list, none. Allow and Deny are path.Match patterns on
// the names the apps see (SERVER__TOOL). ToolMode is "", "all" or
// "search".
type ProfileEntry struct {
	Servers  []string `json:"servers"`
	Allow    []string `json:"allow,omitempty"`
	Deny     []string `json:"deny,omitempty"`
	ToolMode string   `json:"toolMode,omitempty"`
	// Roots and Sampling: see config.Profile. API 1.3.
	Roots    []string `json:"roots,omitempty"`
	Sampling string   `json:"sampling,omitempty"`
}

// ProfileInfo is a profile and its problems: Missing names the servers it
// names that the config lacks (a warning: the profile works with the
// others); Problems holds every problem of the profile, warnings included.
type ProfileInfo struct {
	Name string `json:"name"`
	ProfileEntry
	Missing  []string  `json:"missing,omitempty"`
	Problems []Problem `json:"problems,omitempty"`
}

// ProfilePutParams add or replace the profile Name.
type ProfilePutParams struct {
	Name    string       `json:"name"`
	Profile ProfileEntry `json:"profile"`
}
