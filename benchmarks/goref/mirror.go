package main

// podMirror: with --preemption, the fake clientset holds every pod the scheduler cache
// and the pending set hold, so that what the scheduler's code reads through the pod
// informer (the preemptor in Evaluator.Preempt, the nominator's check that a pod is
// alive and unbound) is the cluster goref simulates, and what it writes through the
// clientset (DefaultPreemption deleting victims and clearing nominations, the status
// update of a failed pod) comes back as informer events, as in kube-scheduler.
//
// goref's own writes (the input's pods, addPod and delete events, bindings) are tagged
// "own": their effect on the cache and the queue is applied directly, as before, and
// their events are dropped. The scheduler's writes are applied when their events arrive,
// as pkg/scheduler/eventhandlers.go handles them (the caller's hooks). drain waits for
// the event of every write made so far and handles them in write order, in the calling
// goroutine: nothing changes behind a cycle's back, whatever the informer's timing.

import (
	"context"
	"fmt"
	"sync"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/cache"
)

// podEvent is one notification of the pod informer.
type podEvent struct {
	op       byte // 'a' add, 'u' update, 'd' delete
	old, pod *v1.Pod
}

// podHooks apply the scheduler's own pod writes (not goref's) as the informer's event
// handlers of the mode (simulate, --events, replay) do.
type podHooks struct {
	deleted func(p *v1.Pod) error      // a pod the scheduler deleted (a victim)
	updated func(old, p *v1.Pod) error // a pod whose status the scheduler patched
}

type podMirror struct {
	client *fake.Clientset
	hooks  podHooks

	mu      sync.Mutex
	cond    *sync.Cond
	events  []podEvent // notifications received and not handled yet
	initial int        // notifications of the informer's first list still to drop
	writes  []bool     // successful pod writes not handled yet, in order: true when goref's own
	own     bool       // goref is writing
}

// newPodMirror registers the mirror on the pod informer of f (before f starts) and
// counts the pod writes of client; initial is the number of pods client holds.
func newPodMirror(client *fake.Clientset, f informers.SharedInformerFactory, initial int) *podMirror {
	m := &podMirror{client: client, initial: initial}
	m.cond = sync.NewCond(&m.mu)
	// The fake watchers' channels hold DefaultChanSize events and panic when full; a
	// preemption may delete ~100 pods at once.
	if watch.DefaultChanSize < 1<<16 {
		watch.DefaultChanSize = 1 << 16
	}
	react := clienttesting.ObjectReaction(client.Tracker())
	client.PrependReactor("*", "pods", func(a clienttesting.Action) (bool, runtime.Object, error) {
		switch a.GetVerb() {
		case "create", "update", "patch", "delete":
		default:
			return false, nil, nil
		}
		handled, obj, err := react(a)
		if err == nil {
			m.mu.Lock()
			m.writes = append(m.writes, m.own)
			m.mu.Unlock()
		}
		return handled, obj, err
	})
	push := func(e podEvent) {
		m.mu.Lock()
		m.events = append(m.events, e)
		m.cond.Broadcast()
		m.mu.Unlock()
	}
	f.Core().V1().Pods().Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(o interface{}) { push(podEvent{op: 'a', pod: o.(*v1.Pod)}) },
		UpdateFunc: func(o, n interface{}) { push(podEvent{op: 'u', old: o.(*v1.Pod), pod: n.(*v1.Pod)}) },
		DeleteFunc: func(o interface{}) {
			if t, ok := o.(cache.DeletedFinalStateUnknown); ok {
				o = t.Obj
			}
			push(podEvent{op: 'd', pod: o.(*v1.Pod)})
		},
	})
	return m
}

// wait blocks until cond holds (m.mu held), at most 60 s.
func (m *podMirror) wait(cond func() bool, what string) error {
	deadline := time.Now().Add(60 * time.Second)
	timer := time.AfterFunc(60*time.Second, func() {
		m.mu.Lock()
		m.cond.Broadcast()
		m.mu.Unlock()
	})
	defer timer.Stop()
	for !cond() {
		if time.Now().After(deadline) {
			return fmt.Errorf("goref: the pod informer did not deliver %s", what)
		}
		m.cond.Wait()
	}
	return nil
}

// start drops the notifications of the informer's first list (one add per pod).
func (m *podMirror) start() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.wait(func() bool { return len(m.events) >= m.initial }, "its initial list"); err != nil {
		return err
	}
	m.events = m.events[m.initial:]
	m.initial = 0
	return nil
}

// drain handles the event of every write made so far, in write order: goref's own are
// dropped, the scheduler's go to the hooks.
func (m *podMirror) drain() error {
	m.mu.Lock()
	if err := m.wait(func() bool { return len(m.events) >= len(m.writes) }, "the events of the pod writes"); err != nil {
		m.mu.Unlock()
		return err
	}
	if len(m.events) > len(m.writes) {
		m.mu.Unlock()
		return fmt.Errorf("goref: the pod informer delivered %d events for %d writes", len(m.events), len(m.writes))
	}
	evs, own := m.events, m.writes
	m.events, m.writes = nil, nil
	m.mu.Unlock()
	for i, e := range evs {
		if own[i] {
			continue
		}
		var err error
		switch {
		case e.op == 'd' && m.hooks.deleted != nil:
			err = m.hooks.deleted(e.pod)
		case e.op == 'u' && m.hooks.updated != nil:
			err = m.hooks.updated(e.old, e.pod)
		default:
			err = fmt.Errorf("goref: unexpected pod event %c of %s/%s from the scheduler", e.op, e.pod.Namespace, e.pod.Name)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// ownWrite runs write as goref's own pod write and drains its event.
func (m *podMirror) ownWrite(write func() error) error {
	m.mu.Lock()
	m.own = true
	m.mu.Unlock()
	err := write()
	m.mu.Lock()
	m.own = false
	m.mu.Unlock()
	if err != nil {
		return err
	}
	return m.drain()
}

// create, bind and remove are goref's own writes of a pod added, bound to host, or
// deleted.
func (m *podMirror) create(p *v1.Pod) error {
	return m.ownWrite(func() error {
		_, err := m.client.CoreV1().Pods(p.Namespace).Create(context.TODO(), p, metav1.CreateOptions{})
		return err
	})
}

func (m *podMirror) bind(p *v1.Pod, host string) error {
	return m.ownWrite(func() error {
		cur, err := m.client.CoreV1().Pods(p.Namespace).Get(context.TODO(), p.Name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		b := cur.DeepCopy()
		b.Spec.NodeName = host
		_, err = m.client.CoreV1().Pods(p.Namespace).Update(context.TODO(), b, metav1.UpdateOptions{})
		return err
	})
}

func (m *podMirror) remove(p *v1.Pod) error {
	return m.ownWrite(func() error {
		return m.client.CoreV1().Pods(p.Namespace).Delete(context.TODO(), p.Name, metav1.DeleteOptions{})
	})
}
