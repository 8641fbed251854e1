package main

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/anishathalye/porcupine"
)

// opOutput is an operation's output for the model: its result, or unknown
// when it never returned.
type opOutput struct {
	res     Result
	unknown bool
}

// kvModel is a single register per key (the history is partitioned by
// key): get returns the value, put sets it, cas sets it if it matches.
// An operation that never returned may take effect at any point after its
// call, or never; its output is not checked.
var kvModel = porcupine.Model{
	Partition: func(history []porcupine.Operation) [][]porcupine.Operation {
		byKey := make([][]porcupine.Operation, len(keys))
		for _, o := range history {
			k := keyIndex(o.Input.(Command).Key)
			byKey[k] = append(byKey[k], o)
		}
		return byKey
	},
	Init: func() any { return "" },
	Step: func(state, input, output any) (bool, any) {
		st, in, out := state.(string), input.(Command), output.(opOutput)
		switch in.Kind {
		case OpGet:
			return out.unknown || out.res.Value == st, st
		case OpPut:
			return true, in.Value
		default:
			swapped := st == in.Expect
			if !out.unknown && out.res.OK != swapped {
				return false, st
			}
			if swapped {
				return true, in.Value
			}
			return true, st
		}
	},
	DescribeOperation: func(input, output any) string {
		in, out := input.(Command), output.(opOutput)
		if out.unknown {
			return in.String() + " -> ?"
		}
		return in.String() + " -> " + describeResult(in.Kind, out.res)
	},
	DescribeState: func(state any) string { return fmt.Sprintf("%q", state.(string)) },
}

func keyIndex(k string) int {
	for i, x := range keys {
		if x == k {
			return i
		}
	}
	panic("raftkv: unknown key " + k)
}

// violation starts the failure of a history that is not linearizable.
const violation = "linearizability violation"

// check checks the history for linearizability. On a violation it returns
// the failure and, when cfg.OutDir is set, the path of porcupine's HTML
// visualisation of the history.
func check(history []*op, cfg simConfig) (failure, visual string) {
	ops := make([]porcupine.Operation, len(history))
	for i, o := range history {
		p := porcupine.Operation{ClientId: o.client, Input: o.cmd, Call: int64(o.call), Output: opOutput{res: o.res}, Return: int64(o.ret)}
		if !o.done {
			p.Output, p.Return = opOutput{unknown: true}, math.MaxInt64
		}
		ops[i] = p
	}
	if porcupine.CheckOperations(kvModel, ops) {
		return "", ""
	}
	var bad []string
	for k, part := range kvModel.Partition(ops) {
		if !porcupine.CheckOperations(kvModel, part) {
			bad = append(bad, fmt.Sprintf("%s (%d operations)", keys[k], len(part)))
		}
	}
	failure = violation + " on key " + strings.Join(bad, ", key ")
	if cfg.OutDir == "" {
		return failure, ""
	}
	_, info := porcupine.CheckOperationsVerbose(kvModel, ops, 0)
	visual = filepath.Join(cfg.OutDir, fmt.Sprintf("raftkv-seed%d.html", cfg.Seed))
	if err := os.MkdirAll(cfg.OutDir, 0o755); err == nil { //simrt:allow the visualisation is written after the simulation, for the user
		err = porcupine.VisualizePath(kvModel, info, visual)
		if err == nil {
			return failure, visual
		}
	}
	return failure, ""
}
