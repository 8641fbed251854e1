package nettest

import (
	"github.com/simrt/simrt"
)

// Two Binds of port 0 on one address both succeed, each listener on a
// port of its own that its Addr reports (not 0, as in production, where
// the kernel picks an ephemeral port), and a Dial to each Addr reaches
// that listener and no other.
func bindZeroAssignsPorts(t T, env Env) {
	var ls [2]simrt.Listener
	for i := range ls {
		l, err := env.Network().Bind(anyPort)
		if err != nil {
			t.Errorf("Bind %d of %v: %v", i+1, anyPort, err)
			return
		}
		defer l.Close()
		ls[i] = l
		if a := l.Addr(); a.Port() == 0 || a.Addr() != anyPort.Addr() {
			t.Errorf("Bind %d of %v: listener address %v, want %v with a port other than 0", i+1, anyPort, a, anyPort.Addr())
			return
		}
	}
	if ls[0].Addr() == ls[1].Addr() {
		t.Errorf("two Binds of %v both listen on %v", anyPort, ls[0].Addr())
		return
	}
	var conns []conn
	defer func() {
		for _, c := range conns {
			c.close()
		}
	}()
	for i, l := range ls {
		c, ok := dial(t, env, l.Addr())
		if !ok {
			return
		}
		conns = append(conns, c)
		if !send(t, c.sink, "client of "+l.Addr().String(), []byte{byte(i)}) {
			return
		}
	}
	for i, l := range ls {
		var a conn
		err := simrt.Timeout(env, guard, func() error {
			_, si, st, err := l.Accept()
			a = conn{si, st}
			return err
		})
		if err != nil {
			t.Errorf("Accept on %v after a Dial to it: %v", l.Addr(), err)
			return
		}
		conns = append(conns, a)
		expect(t, a.stream, []byte{byte(i)}, "listener "+l.Addr().String())
	}
}
