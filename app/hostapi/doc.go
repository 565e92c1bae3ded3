// Package hostapi is the contract between the host (app/host) and its
// clients (app/client, and through it the command line, the tray and the
// window): every method of the host's local API with its params and
// result, the event topics with their payloads, and the states of a
// server with what each allows. It holds types, constants and the
// methods' descriptors only; the host implements them, app/client calls
// them. Nothing here imports the host, the engine or a screen, so a
// client that imports this package does not drag the host in (the
// dependency test in internal/deptest says so).
//
// # Methods
//
// Each method is a [Method] descriptor (contract.go) whose type
// parameters are its params and result: [MethodServersStart] is a
// Method[NameParams, None]. The host's handler table and app/client's
// Call are typed by the descriptor, so neither can disagree with it, and
// [Methods] lists them all for the contract test. [APIVersion] is stated
// in the host's greeting and checked by app/client.
//
// # States
//
// A server's [State] is the supervisor's (stopped, starting, running,
// restarting, waiting for secret, failed, stopping) or the host's own
// (disabled, invalid, sleeping, and a remote server's unreachable,
// unauthorized, signing in, sign-in needed; removed only in a
// [TopicState] event). The host decides it in one place (app/host's
// PublicState), and the status API, the gateway (what an AI app is
// told) and 'switchboard status' without a host all give that one.
// Every front end reads what a state allows from its predicates, so the
// tray and the window agree:
//
//   - [State.CanStart]: stopped or failed. A disabled server is enabled
//     first, an invalid entry fixed first.
//   - [State.CanStop]: a process runs or the supervisor will start one:
//     running, starting, restarting, waiting for secret.
//   - [State.CanRestart]: what CanStop allows, and failed (a restart
//     resets its failure count). A stopped server is started, not
//     restarted: the window used to offer Restart on it, the tray did
//     not; neither does now.
//   - [State.Severity]: running is [SeverityOK]; starting, restarting
//     and stopping are [SeverityProgress] (on their way, nothing to do);
//     waiting for secret is [SeverityWarning]: it needs the user (a
//     secret to store) but has not failed, and it starts by itself once
//     the secret is there. The tray used to count it as failed and the
//     window as on its way; both now show it as a warning (amber, like a
//     start in progress, never red). failed and invalid are
//     [SeverityFailed]; stopped and disabled [SeverityIdle] (not meant to
//     run).
package hostapi
