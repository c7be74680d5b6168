package dev.cuckoo.server.command;

/**
 * Redis-style glob matching for KEYS, SCAN MATCH and CONFIG GET: {@code *}, {@code ?}, {@code
 * [abc]}, {@code [^abc]}, {@code [a-z]} and backslash escapes, on bytes.
 */
public final class Glob {
  private Glob() {}

  /**
   * Returns true if the whole string matches the pattern. Iterative with one backtrack point (the
   * last star), so the time is O(pattern length * string length) for any pattern.
   */
  static boolean matches(byte[] p, byte[] s) {
    int pi = 0;
    int si = 0;
    int starPattern = -1;
    int starString = -1;
    while (si < s.length) {
      if (pi < p.length && p[pi] == '*') {
        starPattern = pi++;
        starString = si;
      } else if (pi < p.length && tokenMatches(p, pi, s[si])) {
        pi = tokenEnd(p, pi);
        si++;
      } else if (starPattern >= 0) {
        pi = starPattern + 1;
        si = ++starString;
      } else {
        return false;
      }
    }
    while (pi < p.length && p[pi] == '*') {
      pi++;
    }
    return pi == p.length;
  }

  private static boolean tokenMatches(byte[] p, int pi, byte c) {
    switch (p[pi]) {
      case '?':
        return true;
      case '[':
        return classMatches(p, pi + 1, classEnd(p, pi), c);
      case '\\':
        return pi + 1 < p.length ? p[pi + 1] == c : c == '\\';
      default:
        return p[pi] == c;
    }
  }

  private static int tokenEnd(byte[] p, int pi) {
    switch (p[pi]) {
      case '[':
        return classEnd(p, pi) + 1;
      case '\\':
        return Math.min(pi + 2, p.length);
      default:
        return pi + 1;
    }
  }

  /** Returns the index of the ']' closing the class at {@code open} (or the last index). */
  private static int classEnd(byte[] p, int open) {
    int i = open + 1;
    if (i < p.length && p[i] == '^') {
      i++;
    }
    while (i < p.length && p[i] != ']') {
      if (p[i] == '\\' && i + 1 < p.length) {
        i++;
      }
      i++;
    }
    return Math.min(i, p.length - 1);
  }

  private static boolean classMatches(byte[] p, int from, int end, byte c) {
    boolean negate = from < end && p[from] == '^';
    int i = negate ? from + 1 : from;
    boolean found = false;
    while (i < end) {
      if (p[i] == '\\' && i + 1 < end) {
        i++;
        found |= p[i] == c;
        i++;
      } else if (i + 2 < end && p[i + 1] == '-') {
        int lo = Math.min(p[i] & 0xff, p[i + 2] & 0xff);
        int hi = Math.max(p[i] & 0xff, p[i + 2] & 0xff);
        found |= (c & 0xff) >= lo && (c & 0xff) <= hi;
        i += 3;
      } else {
        found |= p[i] == c;
        i++;
      }
    }
    return negate != found;
  }
}
