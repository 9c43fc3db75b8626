// Sorts cases with Go's sort.Slice and prints the orders, for tests/framework/test_gosort.py.
//
// Input (stdin): a JSON list of cases, each a list of [priority, start] pairs (start -1:
// none). The comparator is util.MoreImportantPod's, with time.Now() for a missing start
// read as later than any given start and than every earlier reading (so, of two pods
// without one, the one asked about first is the more important).
package main

import (
	"encoding/json"
	"os"
	"sort"
)

func main() {
	var cases [][][2]int64
	if err := json.NewDecoder(os.Stdin).Decode(&cases); err != nil {
		panic(err)
	}
	out := make([][]int, len(cases))
	for c, items := range cases {
		order := make([]int, len(items))
		for i := range order {
			order[i] = i
		}
		sort.Slice(order, func(i, j int) bool {
			a, b := items[order[i]], items[order[j]]
			if a[0] != b[0] {
				return a[0] > b[0]
			}
			switch {
			case a[1] < 0:
				return b[1] < 0 // now() then now(): the first reading is earlier
			case b[1] < 0:
				return true // a start in the past is before now()
			default:
				return a[1] < b[1]
			}
		})
		out[c] = order
	}
	if err := json.NewEncoder(os.Stdout).Encode(out); err != nil {
		panic(err)
	}
}
