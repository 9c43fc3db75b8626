package main

// PodDisruptionBudgets: read as kubectl prints them (policy/v1, or policy/v1beta1
// converted by the API server's own conversion, whose empty selector selects nothing),
// validated as the API server validates them, and given to DefaultPreemption through the
// fake clientset's PDB informer. A PDB printed without a status gets the status the real
// disruption controller (pkg/controller/disruption of v1.23.6) computes over the input's
// pods: its sync is called once, before the scheduler starts, on a scratch clientset
// holding the input's pods, PDBs and controllers. The pods it counts as healthy are the
// input's pods that are Ready; a pod whose status has no Ready condition counts as Ready
// when it is bound (spec.nodeName set), not being deleted, and its phase is Running or
// not given (see readyForController).
//
//	goref pdb-status PATH...   prints every PDB with the status the scheduler sees

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	_ "unsafe" // go:linkname

	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	policyv1beta1 "k8s.io/api/policy/v1beta1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	"k8s.io/kubernetes/pkg/apis/policy"
	_ "k8s.io/kubernetes/pkg/apis/policy/install" // policy, policy/v1, policy/v1beta1 in legacyscheme
	policyvalidation "k8s.io/kubernetes/pkg/apis/policy/validation"
	"k8s.io/kubernetes/pkg/controller/disruption"
)

// disruptionSync is the disruption controller's sync of one PDB key (trySync, and
// failSafe when it fails: DisruptionsAllowed 0), which writes the status it computes.
//
//go:linkname disruptionSync k8s.io/kubernetes/pkg/controller/disruption.(*DisruptionController).sync
func disruptionSync(dc *disruption.DisruptionController, key string) error

// decodePDB turns a PodDisruptionBudget object of the input (raw: its JSON, namespace
// ns) into the policy/v1 object the API server would serve, validated by the API
// server's validation; given says whether the object carried a status (a non-empty
// "status" object).
func decodePDB(obj map[string]interface{}, raw []byte, ns string) (*policyv1.PodDisruptionBudget, bool, error) {
	var internal policy.PodDisruptionBudget
	switch apiVersion, _ := obj["apiVersion"].(string); apiVersion {
	case "", "policy/v1":
		var ext policyv1.PodDisruptionBudget
		if err := json.Unmarshal(raw, &ext); err != nil {
			return nil, false, err
		}
		if err := legacyscheme.Scheme.Convert(&ext, &internal, nil); err != nil {
			return nil, false, err
		}
	case "policy/v1beta1":
		var ext policyv1beta1.PodDisruptionBudget
		if err := json.Unmarshal(raw, &ext); err != nil {
			return nil, false, err
		}
		if err := legacyscheme.Scheme.Convert(&ext, &internal, nil); err != nil {
			return nil, false, err
		}
	default:
		return nil, false, fmt.Errorf("apiVersion %q: want policy/v1 or policy/v1beta1", apiVersion)
	}
	internal.Namespace = ns
	if errs := policyvalidation.ValidatePodDisruptionBudget(&internal); len(errs) != 0 {
		return nil, false, fmt.Errorf("field %v", errs[0])
	}
	out := &policyv1.PodDisruptionBudget{}
	if err := legacyscheme.Scheme.Convert(&internal, out, nil); err != nil {
		return nil, false, err
	}
	out.TypeMeta = metav1.TypeMeta{APIVersion: "policy/v1", Kind: "PodDisruptionBudget"}
	st, _ := obj["status"].(map[string]interface{})
	return out, len(st) > 0, nil
}

// addDeployment keeps a Deployment (a kind the scheduler does not read, still counted as
// skipped) for the disruption controller; one without a name is skipped as before.
func (ld *loader) addDeployment(obj map[string]interface{}, loc location) error {
	meta, _ := obj["metadata"].(map[string]interface{})
	name, _ := meta["name"].(string)
	if name == "" {
		return nil
	}
	raw, err := json.Marshal(obj)
	if err != nil {
		return inputErrorf("%s: Deployment %s: %v", loc, name, err)
	}
	d := &appsv1.Deployment{}
	if err := json.Unmarshal(raw, d); err != nil {
		return inputErrorf("%s: Deployment %s: %v", loc, name, err)
	}
	if d.Namespace == "" {
		d.Namespace = metav1.NamespaceDefault
	}
	ld.in.Deployments = append(ld.in.Deployments, d)
	return nil
}

// readyForController is the pod the disruption controller sees: the input's pod, with a
// Ready condition (True) added when it has none and is bound, not being deleted, and
// Running or without a phase. A pod with a Ready condition keeps it.
func readyForController(p *v1.Pod) *v1.Pod {
	for _, c := range p.Status.Conditions {
		if c.Type == v1.PodReady {
			return p
		}
	}
	if p.Spec.NodeName == "" || p.DeletionTimestamp != nil || (p.Status.Phase != "" && p.Status.Phase != v1.PodRunning) {
		return p
	}
	c := p.DeepCopy()
	c.Status.Conditions = append(c.Status.Conditions, v1.PodCondition{Type: v1.PodReady, Status: v1.ConditionTrue})
	return c
}

// computePDBStatuses sets the status of every PDB of in that came without one, as the
// disruption controller's sync computes it over in's pods and controllers. Its informers
// draw from math/rand (reflectors), so this runs before the harness seeds it.
func computePDBStatuses(in *inputSet) error {
	var keys []string
	for i, pdb := range in.PDBs {
		if !in.PDBStatusGiven[i] {
			keys = append(keys, pdb.Namespace+"/"+pdb.Name)
		}
	}
	if len(keys) == 0 {
		return nil
	}
	var objs []runtime.Object
	for _, p := range in.AllPods {
		objs = append(objs, readyForController(p))
	}
	for i, pdb := range in.PDBs {
		if in.PDBStatusGiven[i] {
			objs = append(objs, pdb)
		} else {
			noStatus := pdb.DeepCopy()
			noStatus.Status = policyv1.PodDisruptionBudgetStatus{}
			objs = append(objs, noStatus)
		}
	}
	objs = appendObjects(objs, in.RCs)
	objs = appendObjects(objs, in.RSs)
	objs = appendObjects(objs, in.Deployments)
	objs = appendObjects(objs, in.SSs)
	client := fake.NewSimpleClientset(objs...)
	f := informers.NewSharedInformerFactory(client, 0)
	dc := disruption.NewDisruptionController(
		f.Core().V1().Pods(), f.Policy().V1().PodDisruptionBudgets(),
		f.Core().V1().ReplicationControllers(), f.Apps().V1().ReplicaSets(),
		f.Apps().V1().Deployments(), f.Apps().V1().StatefulSets(),
		client,
		// No scale subresource is reachable: a pod whose controller is none of the four
		// kinds above (or is absent from the input) makes the sync fail, and the
		// controller's failSafe sets DisruptionsAllowed to 0, as with a real API server.
		apimeta.NewDefaultRESTMapper(nil), nil, client.Discovery())
	stop := make(chan struct{})
	defer close(stop)
	// Its informers' reflectors draw from math/rand too: before the harness seeds it.
	if err := startInformers(f, client, stop); err != nil {
		return fmt.Errorf("disruption controller: %v", err)
	}
	for _, key := range keys {
		if err := disruptionSync(dc, key); err != nil {
			return fmt.Errorf("disruption controller: PodDisruptionBudget %s: %v", key, err)
		}
	}
	for i, pdb := range in.PDBs {
		if in.PDBStatusGiven[i] {
			continue
		}
		got, err := client.PolicyV1().PodDisruptionBudgets(pdb.Namespace).Get(context.TODO(), pdb.Name, metav1.GetOptions{})
		if err != nil {
			return fmt.Errorf("disruption controller: PodDisruptionBudget %s/%s: %v", pdb.Namespace, pdb.Name, err)
		}
		pdb.Status = got.Status
	}
	return nil
}

// pdbStatusJSON is one PDB of goref pdb-status (the status's numbers; its conditions
// carry wall-clock times and are left out).
type pdbStatusJSON struct {
	Namespace          string                 `json:"namespace"`
	Name               string                 `json:"name"`
	Computed           bool                   `json:"computed"`
	Selector           *metav1.LabelSelector  `json:"selector"`
	DisruptionsAllowed int32                  `json:"disruptionsAllowed"`
	CurrentHealthy     int32                  `json:"currentHealthy"`
	DesiredHealthy     int32                  `json:"desiredHealthy"`
	ExpectedPods       int32                  `json:"expectedPods"`
	DisruptedPods      map[string]metav1.Time `json:"disruptedPods"`
}

// pdbStatusMain: goref pdb-status PATH... prints {"pdbs": [...]}: each PDB of the input
// (input order) with its selector as the scheduler sees it (policy/v1) and its status,
// given or computed.
func pdbStatusMain(args []string) error {
	var paths []string
	for _, a := range args {
		if strings.HasPrefix(a, "-") && a != "-" {
			return usageErrorf("pdb-status: unknown flag %q", a)
		}
		paths = append(paths, a)
	}
	if len(paths) == 0 {
		return usageErrorf("pdb-status needs at least one PATH")
	}
	in, err := loadInputs(paths)
	if err != nil {
		return err
	}
	if err := computePDBStatuses(in); err != nil {
		return err
	}
	out := struct {
		PDBs []pdbStatusJSON `json:"pdbs"`
	}{PDBs: []pdbStatusJSON{}}
	for i, pdb := range in.PDBs {
		st := pdb.Status
		disrupted := st.DisruptedPods
		if disrupted == nil {
			disrupted = map[string]metav1.Time{}
		}
		out.PDBs = append(out.PDBs, pdbStatusJSON{Namespace: pdb.Namespace, Name: pdb.Name,
			Computed: !in.PDBStatusGiven[i], Selector: pdb.Spec.Selector,
			DisruptionsAllowed: st.DisruptionsAllowed, CurrentHealthy: st.CurrentHealthy,
			DesiredHealthy: st.DesiredHealthy, ExpectedPods: st.ExpectedPods, DisruptedPods: disrupted})
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", " ")
	return enc.Encode(out)
}
