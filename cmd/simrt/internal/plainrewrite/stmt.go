package plainrewrite

import (
	"go/ast"
	"go/token"
	"go/types"
	"strconv"
	"strings"
)

// goStmt rewrites go f(a, b): f and the arguments are evaluated at once,
// as Go evaluates them, and the call runs in a goroutine started by
// simrthook.Go. A function literal, a declared function or a constant
// argument has nothing to evaluate and stays in the call.
func (r *rewriter) goStmt(g *ast.GoStmt) string {
	r.usesHook = true
	call := g.Call
	fun := unparen(call.Fun)
	if len(call.Args) == 0 && r.plainFunc(call.Fun) {
		return r.keepLines(g, "simrthook.Go("+r.text(call.Fun)+")")
	}
	var pre []string
	f := r.text(call.Fun)
	if r.isBuiltin(fun, "close") {
		f = "simrthook.Close"
	} else if !r.static(fun) {
		name := r.name("F")
		pre = append(pre, name+" := "+f)
		f = name
	}
	args := make([]string, len(call.Args))
	for i, a := range call.Args {
		tv := r.Info.Types[a]
		if tv.Value != nil || tv.IsNil() {
			args[i] = r.text(a)
			continue
		}
		name := r.name("A")
		pre = append(pre, name+" := "+r.text(a))
		args[i] = name
	}
	body := f + "(" + strings.Join(args, ", ")
	if call.Ellipsis.IsValid() {
		body += "..."
	}
	body += ")"
	text := "{ " + strings.Join(append(pre, "simrthook.Go(func() { "+body+" }) }"), "; ")
	return r.keepLines(g, text)
}

// plainFunc reports whether e is a func() with no results whose value
// simrthook.Go can take as it is: evaluating e is all go e() evaluates
// before the goroutine starts.
func (r *rewriter) plainFunc(e ast.Expr) bool {
	sig, ok := r.Info.TypeOf(e).(*types.Signature)
	if !ok || sig.Params().Len() != 0 || sig.Results().Len() != 0 || sig.TypeParams().Len() != 0 {
		return false
	}
	return !r.isBuiltin(unparen(e), "panic")
}

// static reports whether evaluating fun has no effect and its value cannot
// change before the goroutine starts: a function literal, or the name of a
// declared function (which may be generic, instantiated by the call).
func (r *rewriter) static(fun ast.Expr) bool {
	switch f := fun.(type) {
	case *ast.FuncLit:
		return true
	case *ast.Ident:
		_, isFunc := r.Info.Uses[f].(*types.Func)
		_, isBuiltin := r.Info.Uses[f].(*types.Builtin)
		return isFunc || isBuiltin
	case *ast.SelectorExpr:
		if sel := r.Info.Selections[f]; sel != nil {
			return sel.Kind() == types.MethodExpr
		}
		_, isFunc := r.Info.Uses[f.Sel].(*types.Func)
		return isFunc // a qualified identifier
	case *ast.IndexExpr:
		return r.static(unparen(f.X))
	case *ast.IndexListExpr:
		return r.static(unparen(f.X))
	}
	return false
}

// rangeChan rewrites for v := range ch { body } into a loop on
// simrthook.Recv2 that ends when ch is closed. The body keeps its own
// block, so that it may declare what it declared before.
func (r *rewriter) rangeChan(n *ast.RangeStmt) string {
	r.usesHook = true
	c, v, ok := r.name("C"), r.name("V"), r.name("Ok")
	head := "for " + c + " := " + r.text(n.X) + "; ; { "
	switch {
	case n.Key == nil || isBlank(n.Key):
		head += "if _, " + ok + " := simrthook.Recv2(" + c + "); !" + ok + " { break }; "
	case n.Tok == token.DEFINE:
		k := r.text(n.Key)
		head += k + ", " + ok + " := simrthook.Recv2(" + c + "); if !" + ok + " { break }; _ = " + k + "; "
	default:
		head += v + ", " + ok + " := simrthook.Recv2(" + c + "); if !" + ok + " { break }; " + r.text(n.Key) + " = " + v + "; "
	}
	head = r.keepLinesRange(n.Pos(), n.Body.Lbrace, head)
	return head + r.textRange(n.Body.Lbrace, n.Body.End(), n.Body) + " }"
}

func isBlank(e ast.Expr) bool {
	id, ok := e.(*ast.Ident)
	return ok && id.Name == "_"
}

// keepLinesRange is keepLines for the source range [from, to), replaced by
// text: text keeps to's line.
func (r *rewriter) keepLinesRange(from, to token.Pos, text string) string {
	orig := strings.Count(string(r.Src[r.off(from):r.off(to)]), "\n")
	if d := orig - strings.Count(text, "\n"); d > 0 {
		return text + strings.Repeat("\n", d)
	} else if d < 0 {
		return text + r.lineAt(to)
	}
	return text
}

// selectStmt rewrites a select statement (labelled by label, if not nil).
// The channels and the values sent are evaluated once, in source order;
// then, in a task of a simulation, simrthook.Select chooses the case, and
// anywhere else the native select statement does, on the evaluated
// operands; the case bodies stay where they were, under a switch on the
// case chosen, so that break, continue, return and goto keep their
// meaning (a labelled break of the select breaks the switch, which takes
// the label). The last case (or default) becomes the switch's default, so
// that a select that was a terminating statement stays one.
func (r *rewriter) selectStmt(s *ast.SelectStmt, label *ast.Ident) string {
	r.usesHook = true
	clauses := s.Body.List
	if len(clauses) == 0 {
		text := "for { simrthook.Block() }"
		if label != nil {
			text = label.Name + ": " + text
		}
		return text
	}
	id := strconv.Itoa(r.n + 1)
	r.n++
	idx, okv := "_simrtI"+id, "_simrtOk"+id
	var pre, cases, native []string
	hasDefault := false
	heads := make([]string, len(clauses))
	multiline := false
	for k, cl := range clauses {
		cc := cl.(*ast.CommClause)
		ks := strconv.Itoa(k)
		c, val := "_simrtC"+id+"_"+ks, "_simrtR"+id+"_"+ks
		assign := ""
		switch comm := cc.Comm.(type) {
		case nil:
			hasDefault = true
			native = append(native, "default: "+idx+" = -1")
			heads[k] = "default:"
			continue
		case *ast.SendStmt:
			ct, vt := r.text(comm.Chan), r.text(comm.Value)
			multiline = multiline || strings.Contains(ct+vt, "\n")
			pre = append(pre, c+" := "+ct, val+" := simrthook.On("+c+").Val("+vt+")")
			cases = append(cases, "simrthook.SendCase("+c+", &"+val+")")
			native = append(native, "case "+c+" <- "+val+": "+idx+" = "+ks)
		case *ast.ExprStmt:
			ct := r.text(unparen(comm.X).(*ast.UnaryExpr).X)
			multiline = multiline || strings.Contains(ct, "\n")
			pre = append(pre, c+" := "+ct, val+" := simrthook.Zero("+c+")")
			cases = append(cases, "simrthook.RecvCase("+c+", &"+val+")")
			native = append(native, "case "+val+", "+okv+" = <-"+c+": "+idx+" = "+ks)
		case *ast.AssignStmt:
			ct := r.text(unparen(comm.Rhs[0]).(*ast.UnaryExpr).X)
			multiline = multiline || strings.Contains(ct, "\n")
			pre = append(pre, c+" := "+ct, val+" := simrthook.Zero("+c+")")
			cases = append(cases, "simrthook.RecvCase("+c+", &"+val+")")
			native = append(native, "case "+val+", "+okv+" = <-"+c+": "+idx+" = "+ks)
			lhs := r.textRange(comm.Pos(), comm.TokPos, nodes(comm.Lhs)...)
			rhs := val
			if len(comm.Lhs) == 2 {
				rhs += ", " + okv
			}
			assign = " " + strings.TrimSpace(lhs) + " " + comm.Tok.String() + " " + rhs + ";"
		}
		heads[k] = "case " + ks + ":" + assign
	}
	if !hasDefault { // the last case becomes the switch's default
		last := len(clauses) - 1
		heads[last] = "default:" + strings.TrimPrefix(heads[last], "case "+strconv.Itoa(last)+":")
	}
	block := "true"
	if hasDefault {
		block = "false"
	}
	var b strings.Builder
	b.WriteString("{ ")
	for _, p := range pre {
		b.WriteString(p + "; ")
	}
	b.WriteString("var " + idx + " int; var " + okv + " bool; if simrthook.Active() { " + idx + ", " + okv +
		" = simrthook.Select(" + block)
	for _, c := range cases {
		b.WriteString(", " + c)
	}
	b.WriteString(") } else { select { " + strings.Join(native, "; ") + " } }; _ = " + okv + "; ")
	if label != nil {
		b.WriteString(label.Name + ": ")
	}
	b.WriteString("switch " + idx + " {")
	start := s.Pos()
	if label != nil {
		start = label.Pos()
	}
	head := b.String()
	if multiline {
		head += r.lineAt(s.Body.Lbrace + 1)
	} else {
		head = r.keepLinesRange(start, s.Body.Lbrace+1, head)
	}
	out := head
	at := s.Body.Lbrace + 1
	for k, cl := range clauses {
		cc := cl.(*ast.CommClause)
		out += r.textRange(at, cc.Pos()) // what lies between clauses
		h := heads[k]
		if multiline {
			h += r.lineAt(cc.Colon + 1)
		} else {
			h = r.keepLinesRange(cc.Pos(), cc.Colon+1, h)
		}
		out += h
		var body []ast.Node
		for _, st := range cc.Body {
			body = append(body, st)
		}
		end := cc.End()
		if k+1 < len(clauses) {
			end = clauses[k+1].Pos()
		} else {
			end = s.Body.Rbrace
		}
		out += r.textRange(cc.Colon+1, end, body...)
		at = end
	}
	return out + "}}"
}
