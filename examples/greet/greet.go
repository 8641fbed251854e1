// Package greet is the program of docs/PRODUCTION.md: a greeting service
// written once against simrt.Context, tested in the simulator and run in
// production (cmd/greet).
package greet

import (
	"encoding/binary"
	"net/netip"

	"github.com/simrt/simrt"
)

// Serve answers every request on l with "hello, <name>" until ctx's
// runtime is stopped, then closes l.
func Serve(ctx simrt.Context, l simrt.Listener) error {
	defer l.Close()
	stopped := ctx.Stopped()
	defer stopped.Release()
	conns := ctx.Child("conn")
	accepts := simrt.Spawn(ctx.Child("accept"), func(ctx simrt.Context) error {
		for {
			_, sink, stream, err := l.Accept()
			if err != nil {
				return err
			}
			simrt.Spawn(conns, func(ctx simrt.Context) error {
				defer sink.Close()
				defer stream.Close()
				return answer(sink, stream)
			})
		}
	})
	stopped.Wait(ctx) // graceful shutdown: stop accepting, then return
	accepts.Abort()
	return nil
}

func answer(sink simrt.Sink, stream simrt.Stream) error {
	hdr, err := stream.Recv(2)
	if err != nil {
		return err
	}
	name, err := stream.Recv(int(binary.BigEndian.Uint16(hdr)))
	if err != nil {
		return err
	}
	reply := append([]byte("hello, "), name...)
	return sink.Send(binary.BigEndian.AppendUint16(nil, uint16(len(reply))), reply)
}

// Greet asks the server at addr to greet name.
func Greet(ctx simrt.Context, addr netip.AddrPort, name string) (string, error) {
	sink, stream, err := ctx.Dial(addr)
	if err != nil {
		return "", err
	}
	defer sink.Close()
	defer stream.Close()
	if err := sink.Send(binary.BigEndian.AppendUint16(nil, uint16(len(name))), []byte(name)); err != nil {
		return "", err
	}
	hdr, err := stream.Recv(2)
	if err != nil {
		return "", err
	}
	reply, err := stream.Recv(int(binary.BigEndian.Uint16(hdr)))
	return string(reply), err
}
