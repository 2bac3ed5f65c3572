package cdkd

import (
	"errors"
	"os"
	"os/exec"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// pipeGrace is how long, after SIGKILL, the runner waits for cdkd's output
// pipes to close before it closes them itself: a process of cdkd's group
// that escaped the kill must not hold the step.
const pipeGrace = time.Second

// stopper stops a cdkd process the way a terminal's Ctrl-C does, with a
// bound: SIGINT to cdkd's whole process group (cdkd and what it started,
// such as the app's synth), then SIGKILL to the group once the grace period
// has passed. A process that ignores SIGINT is therefore killed within the
// grace period, children included, and the result says so (Killed).
type stopper struct {
	grace       time.Duration
	interrupted atomic.Bool
	killed      atomic.Bool

	mu    sync.Mutex
	timer *time.Timer
	done  bool
}

// attach makes cmd start in a process group of its own and be stopped by s
// when its context is done.
func (s *stopper) attach(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		s.interrupted.Store(true)
		s.mu.Lock()
		if !s.done {
			s.timer = time.AfterFunc(s.grace, func() { s.kill(cmd.Process) })
		}
		s.mu.Unlock()
		return signalGroup(cmd.Process, syscall.SIGINT)
	}
	// exec's own backstop: it kills cdkd itself and closes the pipes if
	// they are still open a moment after the group was killed.
	cmd.WaitDelay = s.grace + pipeGrace
}

func (s *stopper) kill(p *os.Process) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.done {
		return
	}
	s.killed.Store(true)
	_ = signalGroup(p, syscall.SIGKILL)
}

// exited is called once Wait returned: no signal goes to a process group
// that is gone (its id may be reused).
func (s *stopper) exited() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.done = true
	if s.timer != nil {
		s.timer.Stop()
	}
}

// signalGroup sends sig to p's process group, or to p alone when the group
// cannot be signalled.
func signalGroup(p *os.Process, sig syscall.Signal) error {
	if err := syscall.Kill(-p.Pid, sig); err == nil || errors.Is(err, syscall.ESRCH) {
		if errors.Is(err, syscall.ESRCH) {
			return os.ErrProcessDone
		}
		return nil
	}
	return p.Signal(sig)
}
