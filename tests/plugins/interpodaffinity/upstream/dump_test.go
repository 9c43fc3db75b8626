// Dumps the case tables of kube-scheduler v1.23.6's interpodaffinity tests as JSON.
//
// Not built by kscore_fast: make_upstream.sh copies this file next to a copy of
// pkg/scheduler/framework/plugins/interpodaffinity (tests included), inserts a call
// to dumpCases before each table's loop, runs the tests and writes upstream.json.
package interpodaffinity

import (
	"encoding/json"
	"os"
	"reflect"
	"sync"
	"unsafe"

	v1 "k8s.io/api/core/v1"
	"k8s.io/kubernetes/pkg/scheduler/framework"
)

var (
	dumpMu  sync.Mutex
	dumped  = map[string]interface{}{}
	dumpOut = os.Getenv("IPA_DUMP")
)

func plain(v reflect.Value) interface{} {
	if !v.IsValid() {
		return nil
	}
	if v.CanAddr() && !v.CanInterface() {
		v = reflect.NewAt(v.Type(), unsafe.Pointer(v.UnsafeAddr())).Elem()
	}
	switch x := v.Interface().(type) {
	case *framework.Status:
		if x == nil {
			return nil
		}
		return map[string]interface{}{"code": int(x.Code()), "reasons": x.Reasons()}
	case topologyToMatchedTermCount:
		out := [][]interface{}{}
		for pair, n := range x {
			out = append(out, []interface{}{pair.key, pair.value, n})
		}
		return out
	case *v1.Pod, *v1.Node, v1.Node, framework.NodeScoreList, string, bool, int32, int64, int:
		return x
	}
	switch v.Kind() {
	case reflect.Slice:
		if v.IsNil() {
			return nil
		}
		out := make([]interface{}, v.Len())
		for i := range out {
			out[i] = plain(v.Index(i))
		}
		return out
	case reflect.Struct:
		out := map[string]interface{}{}
		for i := 0; i < v.NumField(); i++ {
			out[v.Type().Field(i).Name] = plain(v.Field(i))
		}
		return out
	}
	panic("unsupported field type " + v.Type().String())
}

// dumpCases records a table (a slice of case structs) under the test's name.
func dumpCases(test string, tests interface{}) {
	v := reflect.ValueOf(tests)
	cases := make([]interface{}, v.Len())
	for i := range cases {
		e := reflect.New(v.Index(i).Type()).Elem()
		e.Set(v.Index(i))
		cases[i] = plain(e)
	}
	dumpMu.Lock()
	defer dumpMu.Unlock()
	dumped[test] = map[string]interface{}{"cases": cases, "namespaces": namespaces}
	data, err := json.MarshalIndent(dumped, "", " ")
	if err != nil {
		panic(err)
	}
	if err := os.WriteFile(dumpOut, data, 0o644); err != nil {
		panic(err)
	}
}
