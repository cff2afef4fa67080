package cli

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

// stopSignals end a search, a stress run or -compare early, as Ctrl-C
// does: the verdict is then incomplete and the summary is still printed
// and written. SIGTERM is what CI cancellation and kill send, SIGHUP what
// a closed terminal sends.
var stopSignals = []os.Signal{os.Interrupt, syscall.SIGTERM, syscall.SIGHUP}

// interruptContext is done once one of stopSignals arrives.
func interruptContext() (context.Context, context.CancelFunc) {
	return signal.NotifyContext(context.Background(), stopSignals...)
}

// stopReason says which signal ended the run: "interrupted (terminated
// signal received)".
func stopReason(ctx context.Context) string {
	if cause := context.Cause(ctx); cause != nil && cause != context.Canceled {
		return "interrupted (" + cause.Error() + ")"
	}
	return "interrupted"
}
