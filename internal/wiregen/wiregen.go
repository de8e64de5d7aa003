// Package wiregen is what the wire-format generators (protocol's
// eventgen, session's itemgen) share: reading a package's source with
// go/ast, its table of wire names and types, and each struct's fields
// with their wire keys and options. A generator turns that into code.
package wiregen

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"unicode"
)

// Package is the parsed source of one package.
type Package struct {
	Fset *token.FileSet
	// Files maps a file's base name to its syntax.
	Files map[string]*ast.File
	// Structs are the package's struct types by name.
	Structs map[string]*ast.StructType
	// StructFile is the base name of the file declaring each struct.
	StructFile map[string]string
	// Methods holds "Type.Method" for every method, and Funcs every
	// top-level function name, each with its file's base name.
	Methods, Funcs map[string]string
}

// Load parses the non-test files of package name in dir, leaving out the
// generated file skip.
func Load(dir, name, skip string) (*Package, error) {
	fset := token.NewFileSet()
	pkgs, err := parser.ParseDir(fset, dir, func(fi os.FileInfo) bool {
		return !strings.HasSuffix(fi.Name(), "_test.go") && fi.Name() != skip
	}, 0)
	if err != nil {
		return nil, err
	}
	pkg, ok := pkgs[name]
	if !ok {
		return nil, fmt.Errorf("no package %s in %s", name, dir)
	}
	p := &Package{Fset: fset, Files: map[string]*ast.File{}, Structs: map[string]*ast.StructType{},
		StructFile: map[string]string{}, Methods: map[string]string{}, Funcs: map[string]string{}}
	for path, f := range pkg.Files {
		base := filepath.Base(path)
		p.Files[base] = f
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.GenDecl:
				for _, s := range d.Specs {
					if ts, ok := s.(*ast.TypeSpec); ok {
						if st, ok := ts.Type.(*ast.StructType); ok {
							p.Structs[ts.Name.Name] = st
							p.StructFile[ts.Name.Name] = base
						}
					}
				}
			case *ast.FuncDecl:
				if d.Recv != nil {
					recv := strings.TrimPrefix(ExprString(d.Recv.List[0].Type), "*")
					p.Methods[recv+"."+d.Name.Name] = base
				} else {
					p.Funcs[d.Name.Name] = base
				}
			}
		}
	}
	return p, nil
}

// Row is one table entry: a wire name and the struct type carrying it.
type Row struct {
	Name, Type string
	Fields     []Field
}

// Table reads the table returned by func fn: a composite literal of rows
// {"wire_name", Type{}} (or &Type{}), each type a struct of the package.
func (p *Package) Table(fn string) ([]Row, error) {
	var lit *ast.CompositeLit
	for _, f := range p.Files {
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv == nil && fd.Name.Name == fn {
				for _, s := range fd.Body.List {
					if r, ok := s.(*ast.ReturnStmt); ok && len(r.Results) == 1 {
						lit, _ = r.Results[0].(*ast.CompositeLit)
					}
				}
			}
		}
	}
	if lit == nil {
		return nil, fmt.Errorf("no func %s returning a composite literal", fn)
	}
	var rows []Row
	seen := map[string]bool{}
	for _, elt := range lit.Elts {
		bad := fmt.Errorf("%s: a row of %s is {\"wire_name\", Type{}}", p.Fset.Position(elt.Pos()), fn)
		row, ok := elt.(*ast.CompositeLit)
		if !ok || len(row.Elts) != 2 {
			return nil, bad
		}
		name, ok1 := row.Elts[0].(*ast.BasicLit)
		zeroExpr := row.Elts[1]
		if u, ok := zeroExpr.(*ast.UnaryExpr); ok && u.Op == token.AND {
			zeroExpr = u.X
		}
		zero, ok2 := zeroExpr.(*ast.CompositeLit)
		if !ok1 || !ok2 || name.Kind != token.STRING {
			return nil, bad
		}
		r := Row{Type: ExprString(zero.Type)}
		r.Name, _ = strconv.Unquote(name.Value)
		if seen[r.Name] || seen[r.Type] {
			return nil, fmt.Errorf("%s: %s/%s listed twice", p.Fset.Position(elt.Pos()), r.Name, r.Type)
		}
		seen[r.Name], seen[r.Type] = true, true
		st, ok := p.Structs[r.Type]
		if !ok {
			return nil, fmt.Errorf("%s: %s is not a struct type of the package", p.Fset.Position(elt.Pos()), r.Type)
		}
		fields, err := p.fields(st)
		if err != nil {
			return nil, err
		}
		r.Fields = fields
		rows = append(rows, r)
	}
	return rows, nil
}

// Field is one payload field in declaration order.
type Field struct {
	GoName, Key, Type string
	// Options are the tag's options after the key: "omitempty" maps to
	// "", "default=V" to V.
	Options map[string]string
}

// Has reports whether the field's tag sets option o.
func (f Field) Has(o string) bool { _, ok := f.Options[o]; return ok }

func (p *Package) fields(st *ast.StructType) ([]Field, error) {
	var out []Field
	for _, fl := range st.Fields.List {
		tag := ""
		if fl.Tag != nil {
			s, _ := strconv.Unquote(fl.Tag.Value)
			tag = reflect.StructTag(s).Get("wire")
		}
		if tag != "" && len(fl.Names) != 1 {
			return nil, fmt.Errorf("%s: a tagged field declares one name", p.Fset.Position(fl.Pos()))
		}
		for _, n := range fl.Names {
			if !n.IsExported() {
				continue
			}
			f := Field{GoName: n.Name, Key: Snake(n.Name), Type: ExprString(fl.Type), Options: map[string]string{}}
			parts := strings.Split(tag, ",")
			if parts[0] != "" {
				f.Key = parts[0]
			}
			for _, o := range parts[1:] {
				k, v, _ := strings.Cut(o, "=")
				f.Options[k] = v
			}
			out = append(out, f)
		}
	}
	return out, nil
}

// Snake turns a Go name into its wire key: ToolCallID → tool_call_id,
// CostUSD → cost_usd, OK → ok.
func Snake(s string) string {
	r := []rune(s)
	var b strings.Builder
	for i, c := range r {
		if i > 0 && unicode.IsUpper(c) {
			prev := r[i-1]
			nextLower := i+1 < len(r) && unicode.IsLower(r[i+1])
			if unicode.IsLower(prev) || unicode.IsDigit(prev) || (unicode.IsUpper(prev) && nextLower) {
				b.WriteByte('_')
			}
		}
		b.WriteRune(unicode.ToLower(c))
	}
	return b.String()
}

// ExprString spells a type expression as in source (string, *float64,
// []JobRecord, json.RawMessage); other expressions by their syntax type.
func ExprString(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.Ident:
		return e.Name
	case *ast.StarExpr:
		return "*" + ExprString(e.X)
	case *ast.ArrayType:
		if e.Len == nil {
			return "[]" + ExprString(e.Elt)
		}
	case *ast.SelectorExpr:
		return ExprString(e.X) + "." + e.Sel.Name
	}
	return fmt.Sprintf("%T", e)
}

// Main is a generator's main: it writes generate(".") to the file out in
// the current directory (the package go generate runs in), or exits.
func Main(out string, generate func(dir string) ([]byte, error)) {
	src, err := generate(".")
	if err == nil {
		err = os.WriteFile(out, src, 0o644)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// Stale reports an error when the file out in dir is not what
// generate(dir) makes, naming the command that brings it up to date.
func Stale(dir, out, command string, generate func(dir string) ([]byte, error)) error {
	want, err := generate(dir)
	if err != nil {
		return err
	}
	got, err := os.ReadFile(filepath.Join(dir, out))
	if err != nil {
		return err
	}
	if !bytes.Equal(got, want) {
		return fmt.Errorf("%s is out of date with its table and types: run %s", out, command)
	}
	return nil
}

// CopySource copies the .go files of package directory src into dst and
// adds the extra files (name → source): for a generator's tests, which
// try tables and types the package does not have.
func CopySource(dst, src string, extra map[string]string) error {
	names, err := filepath.Glob(filepath.Join(src, "*.go"))
	if err != nil {
		return err
	}
	files := map[string][]byte{}
	for _, n := range names {
		b, err := os.ReadFile(n)
		if err != nil {
			return err
		}
		files[filepath.Base(n)] = b
	}
	for name, s := range extra {
		files[name] = []byte(s)
	}
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(dst, name), b, 0o644); err != nil {
			return err
		}
	}
	return nil
}
