// etcd, exactly as go.etcd.io/etcd/server/v3's own main does it.
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() {
	etcdmain.Main(os.Args)
}
