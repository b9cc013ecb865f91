package codeobj

// ptxShared parses PTX and marks the kernels that use dynamic
// shared memory.
func (p *parser) ptxShared(b []byte) (*CodeObject, error) {
	o, err := p.ptx(b)
	if err != nil {
		return nil, err
	}
	markDynamicShared(o, b)
	return o, nil
}

// markDynamicShared sets UsesDynamicShared on each kernel whose body, or
// a function it calls, names a variable declared ".extern .shared": the
// memory a launch sizes with its dynamic shared bytes. A launch with none
// gives such a kernel an empty window, and its accesses fault.
func markDynamicShared(o *CodeObject, b []byte) {
	l := &ptxLexer{b: string(b), line: 1}
	ext := map[string]bool{}       // .extern .shared variables
	uses := map[string]bool{}      // functions naming one directly
	calls := map[string][]string{} // function -> functions it names
	known := map[string]bool{}     // functions declared so far
	depth := 0
	cur, pending := "", ""
	var decl []token // tokens of a directive being read, up to ';'
	inExtern := false
	for t := l.next(); t.kind != tokEOF; t = l.next() {
		if inExtern {
			if t.kind == tokPunct && (t.text == ";" || t.text == "[") {
				name, shared := "", false
				for _, d := range decl {
					switch {
					case d.text == ".shared":
						shared = true
					case d.kind == tokWord && d.text[0] != '.' && !isDigit(d.text[0]):
						name = d.text
					}
				}
				if shared && name != "" {
					ext[name] = true
				}
				inExtern, decl = false, decl[:0]
			} else {
				decl = append(decl, t)
			}
			if t.text != ";" {
				continue
			}
		}
		switch {
		case t.kind == tokWord && t.text == ".extern":
			inExtern = true
		case t.kind == tokWord && depth == 0 && (t.text == ".entry" || t.text == ".func"):
			pending = "?"
		case t.kind == tokPunct && t.text == "(" && pending != "" && depth == 0:
			// .func's return parameters, or the parameter list: skip to ')'.
			for t = l.next(); t.kind != tokEOF && !(t.kind == tokPunct && t.text == ")"); t = l.next() {
			}
		case t.kind == tokWord && pending == "?" && depth == 0:
			pending = t.text
			known[pending] = true
		case t.kind == tokPunct && t.text == "{":
			if depth == 0 {
				cur, pending = pending, ""
			}
			depth++
		case t.kind == tokPunct && t.text == "}":
			if depth > 0 {
				depth--
			}
			if depth == 0 {
				cur = ""
			}
		case t.kind == tokPunct && t.text == ";" && depth == 0:
			pending = ""
		case t.kind == tokWord && cur != "" && cur != "?":
			if ext[t.text] {
				uses[cur] = true
			} else if known[t.text] && t.text != cur && len(calls[cur]) < len(b) {
				calls[cur] = append(calls[cur], t.text)
			}
		}
	}
	// Propagate through calls; each round marks at least one more function
	// or ends, so there are at most len(calls) rounds.
	for changed := true; changed; {
		changed = false
		for f, callees := range calls {
			if uses[f] {
				continue
			}
			for _, c := range callees {
				if uses[c] {
					uses[f], changed = true, true
					break
				}
			}
		}
	}
	for i := range o.Kernels {
		o.Kernels[i].UsesDynamicShared = uses[o.Kernels[i].Name]
	}
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }
