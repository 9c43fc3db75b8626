"""DefaultPreemption, the PostFilter plugin of kube-scheduler v1.23.6's default profile:
its scalar reference port (:mod:`.reference`) and what it would do for the pods of a
batch that fit nowhere (:mod:`.explain`)."""
