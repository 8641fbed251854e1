package io

import (
	"net"
	"os"

	"github.com/simrt/simrt"
)

var _ simrt.Context

func files() error {
	f, err := os.Open("x") // want `os.Open does real file I/O; use the context's Storage`
	if err != nil {
		return err
	}
	_ = f.Name()
	f.Write([]byte("x"))      // want `os.File.Write does real file I/O`
	defer f.Close()           // want `os.File.Close does real file I/O`
	_, err = os.ReadFile("y") // want `os.ReadFile does real file I/O`
	_ = os.Getenv("HOME")
	return err
}

func network() {
	c, _ := net.Dial("tcp", "example.com:80") // want `net.Dial does real network I/O; use the context's Network`
	_ = c
	var d net.Dialer
	d.Dial("tcp", "x:1") // want `net.Dialer.Dial does real network I/O`
	_ = net.ParseIP("10.0.0.1")
	_, _, _ = net.SplitHostPort("a:1")
}
