// What the output channel says after a palette command's server command: a pure function of the
// server's answer, so that it can be tested without VS Code.
//
// The server tells the user itself (window/showMessage) every failure worth a notification; the
// user's own choices ("declined": the Refactor Preview discarded, "cancelled") and "unchanged"
// are no failure. So the client only logs the answer, whichever path ran the command (palette or
// code action): never a second notification.

/** What the server's ckp.recompile / ckp.regenerateIndex answer. */
export interface CommandResult {
    applied?: boolean;
    reason?: string;
    error?: string;
}

/** One line for the output channel saying what Recompile did. */
export function recompileLog(result: CommandResult | undefined): string {
    if (!result) {
        return 'recompile: no answer from the server';
    }
    return result.applied ? 'recompile: applied' : `recompile: not applied (${result.reason ?? 'no reason given'})`;
}
