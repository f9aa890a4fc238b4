// How the pages word a failed request, shared by the explorer and the tables page.

// A request that never reached the server (fetch's TypeError).
export const UNREACHABLE = "the server cannot be reached (is qiku serve still running?)";

// An error's words: an unreachable server said so, any other error as it is.
export function errorText(e) {
  return e instanceof TypeError ? UNREACHABLE : e.message;
}
