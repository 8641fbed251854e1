// Package stdgen writes the standard-library half of simrt's plain-Go
// overlay: copies of the files of sync, internal/sync, time, math/rand,
// math/rand/v2, hash/maphash and crypto/internal/sysrand (and linkname lines
// of runtime) in which the runtime-facing functions go through simrthook
// inside a simulation and stay Go's own outside one (docs/PLAIN-GO.md).
//
// The files are made from the installed Go's sources, and only for a Go
// release whose hooks are pinned (pins.go): a release that changes one of
// them is refused with the release and the hook named, so that the overlay
// is reviewed before it is used. Nothing of Go's sources is committed:
// simrt test generates the files from the user's GOROOT into its cache at
// each build (cmd/simrt, plainbuild.go), and the build cache keys on their
// content, so an unchanged Go costs one parse of a few files.
package stdgen

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"go/ast"
	"go/parser"
	"go/printer"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// importName is the name under which a generated file imports simrthook:
// not simrthook itself, because the plain-Go rewrite adds its own import of
// simrthook under that name to a file it rewrites (time/sleep.go has
// channel syntax), and one file cannot import two packages under one name.
const importName = "simrtstd"

// hookName writes the hooks' code (which says simrthook.X) for a file that
// imports simrthook as importName.
func hookName(code string) string { return strings.ReplaceAll(code, "simrthook.", importName+".") }

// nativePrefix names the original, bodyless function a wrapper replaces.
const nativePrefix = "simrtNative_"

// Release returns the release a Go version belongs to for the overlay
// ("go1.26" for "go1.26.8").
func Release(goVersion string) string {
	v := strings.TrimPrefix(goVersion, "go")
	parts := strings.SplitN(v, ".", 3)
	if len(parts) < 2 {
		return goVersion
	}
	minor := parts[1]
	if i := strings.IndexAny(minor, "rcbeta-+ "); i >= 0 {
		minor = minor[:i]
	}
	return "go" + parts[0] + "." + minor
}

// Generate returns the overlay files for the Go installed at goroot, whose
// version is goVersion ("go1.26.8"), keyed by their path below goroot/src
// ("sync/runtime.go"). It fails if the release is not supported or if one
// of its hooks differs from its pin, naming the release and the hook.
func Generate(goroot, goVersion string) (map[string][]byte, error) {
	release := Release(goVersion)
	pinned, ok := pins[release]
	if !ok {
		return nil, fmt.Errorf("plain-Go overlay: Go %s (release %s) is not supported; supported: %s", goVersion, release, strings.Join(supported(), ", "))
	}
	found, err := Fingerprints(goroot)
	if err != nil {
		return nil, err
	}
	var changed []string
	for _, h := range hooks {
		key := h.key()
		if got, want := found[key], pinned[key]; got != want {
			changed = append(changed, fmt.Sprintf("%s (pinned %s, found %s)", key, want, orNone(got)))
		}
	}
	if len(changed) > 0 {
		return nil, fmt.Errorf("plain-Go overlay: Go %s moved the runtime hooks pinned for %s: %s; review the hooks (plaingo/stdgen) before updating the pins", goVersion, release, strings.Join(changed, "; "))
	}
	return generate(goroot)
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// supported lists the pinned releases.
func supported() []string {
	var out []string
	for r := range pins {
		out = append(out, r)
	}
	slices.Sort(out)
	return out
}

// key names a hook in pins and messages: "sync.runtime_Semacquire".
func (h hook) key() string { return h.pkg + "." + h.name }

// source is one parsed file of a package.
type source struct {
	path string // below goroot/src
	text []byte
	file *ast.File
	fset *token.FileSet
}

// pkgFiles parses the non-test Go files of package dir (below goroot/src)
// that build on linux (the overlay's target; a file for another system is
// never compiled here, so it needs no hook).
func pkgFiles(goroot, dir string) ([]*source, error) {
	names, err := filepath.Glob(filepath.Join(goroot, "src", dir, "*.go"))
	if err != nil {
		return nil, err
	}
	var out []*source
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		text, err := os.ReadFile(name)
		if err != nil {
			return nil, err
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, name, text, parser.ParseComments)
		if err != nil {
			return nil, err
		}
		out = append(out, &source{path: filepath.ToSlash(filepath.Join(dir, filepath.Base(name))), text: text, file: f, fset: fset})
	}
	return out, nil
}

// funcName is how a hook names a declaration: "f" or "(*T).m".
func funcName(d *ast.FuncDecl) string {
	if d.Recv == nil || len(d.Recv.List) == 0 {
		return d.Name.Name
	}
	var b bytes.Buffer
	printer.Fprint(&b, token.NewFileSet(), d.Recv.List[0].Type)
	return "(" + b.String() + ")." + d.Name.Name
}

// findFunc returns the file and declaration of name in files; a
// declaration guarded by build constraints for other systems may appear
// more than once, and then every one is returned.
func findFunc(files []*source, name string) (out []*source, decls []*ast.FuncDecl) {
	for _, s := range files {
		for _, d := range s.file.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && funcName(fd) == name {
				out = append(out, s)
				decls = append(decls, fd)
			}
		}
	}
	return out, decls
}

// signature prints a declaration's signature with its directives, what a
// pin covers.
func signature(s *source, d *ast.FuncDecl) string {
	var b bytes.Buffer
	if d.Doc != nil {
		for _, c := range d.Doc.List {
			if strings.HasPrefix(c.Text, "//go:") {
				b.WriteString(c.Text + "\n")
			}
		}
	}
	fd := *d
	fd.Doc, fd.Body = nil, nil
	printer.Fprint(&b, token.NewFileSet(), &fd)
	return b.String()
}

// pushPattern matches what defines target ("time.now") in package
// runtime: a linkname push in a Go file, or, for a function written in
// assembly (time.now on linux/amd64 and windows), its TEXT symbol. The
// submatch is the name to retarget.
func pushPattern(target string) (goLine, asmLine *regexp.Regexp) {
	dot := strings.LastIndex(target, ".")
	pkg, name := target[:dot], target[dot+1:]
	goLine = regexp.MustCompile(`(?m)^//go:linkname \w+ (` + regexp.QuoteMeta(target) + `)$`)
	asmLine = regexp.MustCompile(`(?m)^TEXT (` + regexp.QuoteMeta(strings.ReplaceAll(pkg, "/", "∕")+"·"+name) + `)[<(]`)
	return goLine, asmLine
}

// runtimeFile is one non-test Go or assembly file of package runtime.
type runtimeFile struct {
	path string // below src
	text []byte
}

// runtimeSources reads the non-test Go and assembly files of package
// runtime, in path order.
func runtimeSources(goroot string) ([]runtimeFile, error) {
	var out []runtimeFile
	for _, ext := range []string{"*.go", "*.s"} {
		names, err := filepath.Glob(filepath.Join(goroot, "src", "runtime", ext))
		if err != nil {
			return nil, err
		}
		for _, name := range names {
			if strings.HasSuffix(name, "_test.go") {
				continue
			}
			text, err := os.ReadFile(name)
			if err != nil {
				return nil, err
			}
			out = append(out, runtimeFile{"runtime/" + filepath.Base(name), text})
		}
	}
	slices.SortFunc(out, func(a, b runtimeFile) int { return strings.Compare(a.path, b.path) })
	return out, nil
}

// runtimePushes returns what defines target in package runtime (see
// pushPattern), each as "file: line".
func runtimePushes(rtFiles []runtimeFile, target string) []string {
	goLine, asmLine := pushPattern(target)
	var out []string
	for _, f := range rtFiles {
		re := goLine
		if strings.HasSuffix(f.path, ".s") {
			re = asmLine
		}
		if !bytes.Contains(f.text, []byte(target[strings.LastIndex(target, ".")+1:])) {
			continue
		}
		for _, m := range re.FindAll(f.text, -1) {
			out = append(out, f.path+": "+string(m))
		}
	}
	return out
}

// Fingerprints returns, for each hook, a short hash of what the overlay
// depends on in the sources at goroot: the hooked declaration's signature
// and directives (every copy of it) and, for a pushed function, the
// runtime's linkname lines that define it. A hook whose declaration is
// missing gets "".
func Fingerprints(goroot string) (map[string]string, error) {
	out := make(map[string]string)
	byPkg := make(map[string][]*source)
	rtFiles, err := runtimeSources(goroot)
	if err != nil {
		return nil, err
	}
	for _, h := range hooks {
		files, ok := byPkg[h.pkg]
		if !ok {
			var err error
			if files, err = pkgFiles(goroot, h.pkg); err != nil {
				return nil, err
			}
			byPkg[h.pkg] = files
		}
		srcs, decls := findFunc(files, h.name)
		if len(decls) == 0 {
			out[h.key()] = ""
			continue
		}
		sum := sha256.New()
		for i, d := range decls {
			fmt.Fprintf(sum, "%s\n%s\n", srcs[i].path, signature(srcs[i], d))
			if h.pinBody && d.Body != nil {
				printer.Fprint(sum, token.NewFileSet(), d.Body)
			}
		}
		if h.push {
			lines := runtimePushes(rtFiles, h.key())
			if len(lines) == 0 {
				out[h.key()] = ""
				continue
			}
			for _, l := range lines {
				fmt.Fprintln(sum, l)
			}
		}
		out[h.key()] = hex.EncodeToString(sum.Sum(nil))[:12]
	}
	return out, nil
}

// edit is a replacement of text[start:end] in one file.
type edit struct {
	start, end int
	text       string
}

// generate makes the overlay files; the hooks have been checked.
func generate(goroot string) (map[string][]byte, error) {
	edits := make(map[string][]edit) // by path below src
	texts := make(map[string][]byte)
	files := make(map[string]*source)
	extra := make(map[string][]string) // imports beside simrthook, by path
	byPkg := make(map[string][]*source)
	rtFiles, err := runtimeSources(goroot)
	if err != nil {
		return nil, err
	}
	for _, h := range hooks {
		srcs, ok := byPkg[h.pkg]
		if !ok {
			var err error
			if srcs, err = pkgFiles(goroot, h.pkg); err != nil {
				return nil, err
			}
			byPkg[h.pkg] = srcs
		}
		in, decls := findFunc(srcs, h.name)
		if len(decls) != 1 {
			return nil, fmt.Errorf("plain-Go overlay: %s: %d declarations on the build (want 1)", h.key(), len(decls))
		}
		s, d := in[0], decls[0]
		files[s.path], texts[s.path] = s, s.text
		for _, imp := range h.imports {
			if !slices.Contains(extra[s.path], imp) {
				extra[s.path] = append(extra[s.path], imp)
			}
		}
		off := func(p token.Pos) int { return s.fset.Position(p).Offset }
		switch {
		case h.prepend != "":
			if d.Body == nil {
				return nil, fmt.Errorf("plain-Go overlay: %s has no body to prepend to", h.key())
			}
			at := off(d.Body.Lbrace) + 1
			edits[s.path] = append(edits[s.path], edit{at, at, "\n" + hookName(strings.TrimSuffix(h.prepend, "\n"))})
		default:
			if d.Body != nil {
				return nil, fmt.Errorf("plain-Go overlay: %s has a body (want a runtime-provided declaration)", h.key())
			}
			native := nativePrefix + d.Name.Name
			// Rename the declaration and its own linkname directive.
			if d.Doc != nil {
				for _, c := range d.Doc.List {
					if f := strings.Fields(c.Text); len(f) >= 2 && f[0] == "//go:linkname" && f[1] == d.Name.Name {
						at := off(c.Slash) + len("//go:linkname ")
						edits[s.path] = append(edits[s.path], edit{at, at + len(d.Name.Name), native})
					}
				}
			}
			at := off(d.Name.Pos())
			edits[s.path] = append(edits[s.path], edit{at, at + len(d.Name.Name), native})
			end := len(s.text)
			edits[s.path] = append(edits[s.path], edit{end, end, "\n" + hookName(h.wrapper) + "\n"})
		}
		if h.push {
			if err := retarget(rtFiles, h.key(), h.pkg+"."+nativePrefix+h.name, texts, edits); err != nil {
				return nil, err
			}
		}
	}
	// Every changed file of a hooked package imports simrthook.
	for path, s := range files {
		at := importsEnd(s)
		text := "\n\nimport " + importName + " \"simrthook\""
		for _, imp := range extra[path] {
			text += "\n\nimport " + strconv.Quote(imp)
		}
		edits[path] = append(edits[path], edit{at, at, text})
	}
	out := make(map[string][]byte)
	for path, es := range edits {
		text := texts[path]
		slices.SortStableFunc(es, func(a, b edit) int { return a.start - b.start })
		var b bytes.Buffer
		b.WriteString("// Code generated by simrt's plaingo/stdgen from the Go release's own file; DO NOT EDIT.\n\n")
		last := 0
		for _, e := range es {
			b.Write(text[last:e.start])
			b.WriteString(e.text)
			last = e.end
		}
		b.Write(text[last:])
		out[path] = b.Bytes()
	}
	return out, nil
}

// importsEnd returns the offset just after the file's last import
// declaration, or after its package clause when it has none.
func importsEnd(s *source) int {
	end := s.file.Name.End()
	for _, d := range s.file.Decls {
		if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.IMPORT {
			end = g.End()
		}
	}
	return s.fset.Position(end).Offset
}

// retarget points the runtime's definitions of from (see pushPattern) at
// to instead.
func retarget(rtFiles []runtimeFile, from, to string, texts map[string][]byte, edits map[string][]edit) error {
	goLine, asmLine := pushPattern(from)
	toName := to[strings.LastIndex(to, ".")+1:]
	n := 0
	for _, f := range rtFiles {
		path, text := f.path, f.text
		if !bytes.Contains(text, []byte(from[strings.LastIndex(from, ".")+1:])) {
			continue
		}
		re, repl := goLine, to
		if strings.HasSuffix(path, ".s") {
			re = asmLine
			sym := from[:strings.LastIndex(from, ".")]
			repl = strings.ReplaceAll(sym, "/", "∕") + "·" + toName
		}
		for _, m := range re.FindAllSubmatchIndex(text, -1) {
			texts[path] = text
			edits[path] = append(edits[path], edit{m[2], m[3], repl})
			n++
		}
	}
	if n == 0 {
		return fmt.Errorf("plain-Go overlay: nothing in package runtime defines %s", from)
	}
	return nil
}
