package main

// The API server's Priority admission plugin (plugin/pkg/admission/priority of
// k8s.io/kubernetes v1.23.6, the real code) applied to the input's pods that carry no
// spec.priority, as the API server admits a pod it creates: over the input's
// PriorityClasses and the two system ones the API server creates at bootstrap, each
// defaulted as the API server stores it. A pod it refuses is left out of the run, its
// message in the warning line.

import (
	"context"

	v1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apiserver/pkg/admission"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	api "k8s.io/kubernetes/pkg/apis/core"
	corev1 "k8s.io/kubernetes/pkg/apis/core/v1"
	schedulingapiv1 "k8s.io/kubernetes/pkg/apis/scheduling/v1"
	"k8s.io/kubernetes/plugin/pkg/admission/priority"
)

// admitPods returns the pods the plugin admits (those without spec.priority given their
// priority, preemption policy and class name) and the refusals' messages, in input order.
func admitPods(pods []podAt, classes []*schedulingv1.PriorityClass) ([]podAt, []string, error) {
	plugin := priority.NewPlugin()
	plugin.InspectFeatureGates(utilfeature.DefaultFeatureGate)
	factory := informers.NewSharedInformerFactory(fake.NewSimpleClientset(), 0)
	plugin.SetExternalKubeInformerFactory(factory)
	store := factory.Scheduling().V1().PriorityClasses().Informer().GetStore()
	given := map[string]bool{}
	for _, pc := range classes {
		given[pc.Name] = true
	}
	for _, pc := range schedulingapiv1.SystemPriorityClasses() {
		if !given[pc.Name] {
			classes = append(classes, pc.DeepCopy())
		}
	}
	for _, pc := range classes {
		schedulingapiv1.SetDefaults_PriorityClass(pc)
		if err := store.Add(pc); err != nil {
			return nil, nil, err
		}
	}
	var kept []podAt
	var refused []string
	for _, pa := range pods {
		p := pa.pod
		if p.Spec.Priority != nil {
			kept = append(kept, pa)
			continue
		}
		var internal api.Pod
		if err := corev1.Convert_v1_Pod_To_core_Pod(p, &internal, nil); err != nil {
			return nil, nil, err
		}
		attrs := admission.NewAttributesRecord(&internal, nil, api.Kind("Pod").WithVersion("v1"),
			p.Namespace, p.Name, api.Resource("pods").WithVersion("v1"), "", admission.Create,
			&metav1.CreateOptions{}, false, nil)
		if err := plugin.Admit(context.TODO(), attrs, nil); err != nil {
			refused = append(refused, err.Error())
			continue
		}
		p.Spec.Priority = internal.Spec.Priority
		p.Spec.PriorityClassName = internal.Spec.PriorityClassName
		if internal.Spec.PreemptionPolicy != nil {
			policy := v1.PreemptionPolicy(*internal.Spec.PreemptionPolicy)
			p.Spec.PreemptionPolicy = &policy
		}
		kept = append(kept, pa)
	}
	return kept, refused, nil
}
