package simrt

import "strconv"

// The entry points of this package check their function and Context
// arguments at the call, so that a nil one panics there, naming the
// function, rather than as a nil dereference deep inside a task or the
// runtime (a nil function given to Spawn would otherwise fail only when the
// task first ran, on another stack).

// mustFunc panics, naming fn, if the function argument of fn is nil.
func mustFunc(isNil bool, fn string) {
	if isNil {
		panic("simrt: " + fn + " called with a nil function")
	}
}

// mustContext panics, naming fn, if the Context argument of fn is nil.
func mustContext(isNil bool, fn string) {
	if isNil {
		panic("simrt: " + fn + " called with a nil Context")
	}
}

// mustCases panics, naming fn and the index, if a case given to fn is nil.
func mustCases(fn string, cases []Case) {
	for i, c := range cases {
		if c == nil {
			panic("simrt: " + fn + " called with a nil Case (case " + strconv.Itoa(i) + ")")
		}
	}
}

// mustHandle panics, naming fn, if the handle fn was called on is nil.
func mustHandle(isNil bool, fn string) {
	if isNil {
		panic("simrt: " + fn + " called on a nil *Handle")
	}
}
