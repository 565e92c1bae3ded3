package toolsearch

// synonyms maps a query term (stemmed) to related index terms (stemmed).
// Only used when Params.SynonymWeight > 0.
var synonyms = map[string][]string{}
