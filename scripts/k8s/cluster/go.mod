// Small programs of the one-node cluster (scripts/k8s-cluster.sh): the pause process of the pod
// sandbox image and the CRI clean-up that `down` runs. The versions match scripts/k8s/node so
// the build cache it filled is reused.
module fspiop-switch/scripts/k8s/cluster

go 1.24.0

require (
	google.golang.org/grpc v1.72.1
	k8s.io/cri-api v0.34.0
)

require (
	golang.org/x/net v0.38.0 // indirect
	golang.org/x/sys v0.31.0 // indirect
	golang.org/x/text v0.23.0 // indirect
	google.golang.org/genproto/googleapis/rpc v0.0.0-20250303144028-a0af3efb3deb // indirect
	google.golang.org/protobuf v1.36.5 // indirect
)
