package dev.cuckoo.bench;

/**
 * Deterministic benchmark keys: key {@code i} of a key type is the same in every run and every JVM.
 * Keys {@code 0 .. n−1} are inserted; keys from {@code n} on are never inserted and serve as
 * misses. Long keys are a bijective mix of the index, so distinct indexes give distinct keys; URL
 * keys contain the index, so they are distinct too.
 */
public final class Keys {
  private static final long SEED = 0x5DEECE66DL;
  private static final String[] WORDS = {
    "news", "shop", "api", "static", "blog", "docs", "user", "item", "search", "media", "v2", "img"
  };

  private Keys() {}

  /** Returns long key number {@code index}. */
  public static long longKey(long index) {
    return mix(index + SEED);
  }

  /** Returns URL key number {@code index}. */
  public static String urlKey(long index) {
    long r = mix(index ^ 0x2545F4914F6CDD1DL);
    StringBuilder url = new StringBuilder(72);
    url.append("https://")
        .append(WORDS[(int) ((r >>> 4) % WORDS.length)])
        .append('.')
        .append("host")
        .append((r >>> 8) & 1023)
        .append(".example/")
        .append(WORDS[(int) ((r >>> 20) % WORDS.length)])
        .append('/')
        .append(Long.toString(index, 36))
        .append("?id=")
        .append(Long.toHexString(r >>> (int) ((r >>> 40) & 31)));
    return url.toString();
  }

  /** Returns long keys {@code from .. from+count−1}. */
  public static long[] longKeys(long from, int count) {
    long[] keys = new long[count];
    for (int i = 0; i < count; i++) {
      keys[i] = longKey(from + i);
    }
    return keys;
  }

  /** Returns URL keys {@code from .. from+count−1}. */
  public static String[] urlKeys(long from, int count) {
    String[] keys = new String[count];
    for (int i = 0; i < count; i++) {
      keys[i] = urlKey(from + i);
    }
    return keys;
  }

  /** Returns the long keys with the given indexes. */
  public static long[] longKeys(long[] indexes) {
    long[] keys = new long[indexes.length];
    for (int i = 0; i < indexes.length; i++) {
      keys[i] = longKey(indexes[i]);
    }
    return keys;
  }

  /** Returns the URL keys with the given indexes. */
  public static String[] urlKeys(long[] indexes) {
    String[] keys = new String[indexes.length];
    for (int i = 0; i < indexes.length; i++) {
      keys[i] = urlKey(indexes[i]);
    }
    return keys;
  }

  /** A bijective 64-bit mixer (the SplitMix64 finalizer). */
  static long mix(long x) {
    x = (x ^ (x >>> 30)) * 0xBF58476D1CE4E5B9L;
    x = (x ^ (x >>> 27)) * 0x94D049BB133111EBL;
    return x ^ (x >>> 31);
  }
}
