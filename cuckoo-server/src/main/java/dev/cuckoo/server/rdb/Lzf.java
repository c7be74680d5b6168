package dev.cuckoo.server.rdb;

import java.util.Arrays;

/**
 * LZF, the compression Redis applies to RDB strings: a decoder that never writes past the declared
 * plain length, and an encoder that makes exactly the bytes Redis's own compressor makes, so that a
 * DUMP payload written here is byte-identical to Redis's.
 *
 * <p>The format is a sequence of runs, each starting with a control byte {@code c}:
 *
 * <ul>
 *   <li>{@code c < 32}: {@code c + 1} literal bytes follow;
 *   <li>{@code c >> 5} in 1..6: a back reference of {@code (c >> 5) + 2} bytes; one more byte
 *       {@code o} follows, and the copy starts {@code ((c & 31) << 8) + o + 1} bytes back;
 *   <li>{@code c >> 5 == 7}: a back reference of {@code 7 + l + 2} bytes, {@code l} the next byte,
 *       then the low offset byte {@code o} as above.
 * </ul>
 */
public final class Lzf {
  /*
   * The encoder follows Redis's build of liblzf (lzfP.h): HLOG 16 (a hash table of 65536 slots),
   * VERY_FAST 1 and ULTRA_FAST 0, INIT_HTAB 0 (the table starts empty: each call is independent),
   * longest literal run 32, farthest reference 8192 bytes back, longest reference 264 bytes.
   *
   * Its choices, which decide the exact bytes:
   *  - the hash of the 3 bytes at p is h = b0 << 16 | b1 << 8 | b2 (kept as a rolling 32-bit value,
   *    h = h << 8 | next byte), its slot ((h >>> 8) - 5h) mod 65536; each position is stored in its
   *    slot as it is visited, replacing the previous one (one candidate per slot, no chains);
   *  - the candidate is used if it is less than 8192 bytes back, is not position 0 of the input,
   *    and its first 3 bytes equal those at p; the match is then extended byte by byte, by 16
   *    bytes unchecked against the length limit first when more than 16 bytes remain to the limit
   *    (so it may run up to the end of the input), else up to 264 bytes and 2 bytes short of the
   *    end;
   *  - after a match of n bytes ending at q = p + n, the positions q - 2 and q - 1 are hashed into
   *    the table (not the others inside the match), and the scan continues at q;
   *  - the scan stops 2 bytes before the end; the last bytes are literals;
   *  - the output limit is checked as Redis checks it, so the same inputs are refused: before a
   *    reference, it must leave more than 4 bytes after the current position (less one if no
   *    literal is pending); before a literal byte, room for it; before the tail, 3 bytes.
   */

  private static final int HASH_SLOTS = 1 << 16;
  private static final int MAX_LITERAL = 1 << 5;
  private static final int MAX_OFFSET = 1 << 13;
  private static final int MAX_REFERENCE = (1 << 8) + (1 << 3);

  /** Most plain bytes one compressed byte can give: a 3-byte reference of 264 bytes. */
  static final int MAX_RATIO = MAX_REFERENCE / 3;

  /**
   * One thread's hash table, reused from call to call: allocating and clearing 256 KiB for every
   * value cost more than compressing a small one. A call stores {@code base + position} and sees
   * only values above its {@code base}, so what earlier calls stored reads as empty, as a fresh
   * table would (position 0, stored as {@code base}, reads as empty too, as liblzf's 0 does).
   */
  private static final class Table {
    final int[] slots = new int[HASH_SLOTS];
    int next; // the base of the next call

    /** Returns the base of a call over {@code length} bytes, clearing the table when it wraps. */
    int begin(int length) {
      if (next > Integer.MAX_VALUE - length - 1) {
        Arrays.fill(slots, 0);
        next = 0;
      }
      int base = next;
      next = base + length + 1;
      return base;
    }
  }

  private static final ThreadLocal<Table> TABLES = ThreadLocal.withInitial(Table::new);

  /** Moves this thread's table to the base {@code next} (tests reach the wrap with it). */
  static void tableBaseForTests(int next) {
    TABLES.get().next = next;
  }

  private Lzf() {}

  /**
   * Compresses {@code input} as Redis does, or returns null if the result would not fit in {@code
   * maxOutputBytes} bytes (Redis's {@code lzf_compress(in, len, out, maxOutputBytes)} returning 0).
   *
   * @param input the bytes to compress
   * @param maxOutputBytes the most bytes the result may take
   * @return the compressed bytes, or null if they do not fit (or the input is empty)
   */
  public static byte[] compress(byte[] input, int maxOutputBytes) {
    int inputEnd = input.length;
    if (inputEnd == 0 || maxOutputBytes <= 0) {
      return null;
    }
    byte[] out = new byte[maxOutputBytes + 1];
    Table table = TABLES.get();
    int[] lastSeen = table.slots;
    int base = table.begin(inputEnd);
    int in = 0;
    int op = 1; // a literal run's control byte is reserved at op - lit - 1
    int lit = 0;
    int hash = inputEnd >= 2 ? (u(input[0]) << 8) | u(input[1]) : 0;
    boolean inTail = false; // the last 2 bytes: literals only, room checked once
    while (in < inputEnd) {
      if (in < inputEnd - 2) {
        hash = (hash << 8) | u(input[in + 2]);
        int slot = slotOf(hash);
        int candidate = lastSeen[slot] - base;
        lastSeen[slot] = base + in;
        int offset = in - candidate - 1;
        if (candidate > 0
            && offset < MAX_OFFSET
            && input[candidate + 2] == input[in + 2]
            && input[candidate] == input[in]
            && input[candidate + 1] == input[in + 1]) {
          int noLiteral = lit == 0 ? 1 : 0;
          if (op + 4 >= maxOutputBytes && op - noLiteral + 4 >= maxOutputBytes) {
            return null;
          }
          out[op - lit - 1] = (byte) (lit - 1); // close the literal run (dropped if empty)
          op -= noLiteral;
          int length =
              matchLength(input, candidate, in, Math.min(inputEnd - in - 2, MAX_REFERENCE));
          int code = length - 2;
          if (code < 7) {
            out[op++] = (byte) ((offset >>> 8) + (code << 5));
          } else {
            out[op++] = (byte) ((offset >>> 8) + (7 << 5));
            out[op++] = (byte) (code - 7);
          }
          out[op++] = (byte) offset;
          lit = 0;
          op++;
          in += length;
          if (in < inputEnd - 2) {
            in -= 2;
            hash = (u(input[in]) << 8) | u(input[in + 1]);
            for (int k = 0; k < 2; k++) {
              hash = (hash << 8) | u(input[in + 2]);
              lastSeen[slotOf(hash)] = base + in;
              in++;
            }
          }
          continue;
        }
        if (op >= maxOutputBytes) {
          return null;
        }
      } else if (!inTail) {
        if (op + 3 > maxOutputBytes) {
          return null;
        }
        inTail = true;
      }
      lit++;
      out[op++] = input[in++];
      if (lit == MAX_LITERAL) {
        out[op - lit - 1] = (byte) (lit - 1);
        lit = 0;
        op++;
      }
    }
    if (!inTail && op + 3 > maxOutputBytes) {
      return null;
    }
    out[op - lit - 1] = (byte) (lit - 1);
    op -= lit == 0 ? 1 : 0;
    return Arrays.copyOf(out, op);
  }

  /**
   * Returns how many bytes at {@code at} equal those at {@code from} (the first 3 are known equal),
   * extended as Redis's compressor extends a match: 16 bytes at a time unchecked against {@code
   * limit} while more than 16 remain to it, then up to {@code limit}.
   */
  private static int matchLength(byte[] input, int from, int at, int limit) {
    int length = 2; // index of the last byte known equal
    if (limit > 16) {
      for (int k = 0; k < 16; k++) {
        length++;
        if (input[from + length] != input[at + length]) {
          return length;
        }
      }
    }
    do {
      length++;
    } while (length < limit && input[from + length] == input[at + length]);
    return length;
  }

  /** The hash slot of the 3 bytes in the low 24 bits of {@code hash}: liblzf's VERY_FAST IDX. */
  private static int slotOf(int hash) {
    return ((hash >>> 8) - hash * 5) & (HASH_SLOTS - 1);
  }

  private static int u(byte b) {
    return b & 0xFF;
  }

  /**
   * Decompresses {@code length} bytes of {@code input} from {@code offset}, which must give exactly
   * {@code plainLength} bytes. Nothing is allocated but the result, and only once {@code
   * plainLength} is known to be reachable from that much input.
   *
   * @param input the compressed bytes
   * @param offset where they start
   * @param length how many there are
   * @param plainLength the length they must decompress to
   * @return the plain bytes
   * @throws DumpPayloadException ({@link DumpPayloadException.Kind#CONTENT}) if the input is
   *     malformed: a run that crosses the input's end, a reference before the output's start, more
   *     or fewer plain bytes than {@code plainLength}; the offset is the run's, in {@code input}
   * @throws IndexOutOfBoundsException if the range is outside {@code input}
   */
  public static byte[] decompress(byte[] input, int offset, int length, int plainLength) {
    java.util.Objects.checkFromIndexSize(offset, length, input.length);
    if (plainLength < 0 || plainLength > (long) length * MAX_RATIO) {
      throw bad(
          offset,
          "plain length "
              + plainLength
              + " from "
              + length
              + " compressed bytes"
              + " (expected: 0 to "
              + (long) length * MAX_RATIO
              + ")");
    }
    byte[] out = new byte[plainLength];
    int end = offset + length;
    int in = offset;
    int op = 0;
    while (in < end) {
      int run = in;
      int control = u(input[in++]);
      if (control < MAX_LITERAL) {
        int count = control + 1;
        if (count > end - in) {
          throw bad(run, "literal run of " + count + " bytes with " + (end - in) + " left");
        }
        requireRoom(run, "literal run", count, op, plainLength);
        System.arraycopy(input, in, out, op, count);
        in += count;
        op += count;
      } else {
        int count = control >>> 5;
        if (count == 7) {
          if (in >= end) {
            throw bad(run, "long back reference without its length byte");
          }
          count += u(input[in++]);
        }
        if (in >= end) {
          throw bad(run, "back reference without its offset byte");
        }
        int back = ((control & 0x1F) << 8) + u(input[in++]) + 1;
        count += 2;
        if (back > op) {
          throw bad(run, "back reference " + back + " bytes back at plain offset " + op);
        }
        requireRoom(run, "back reference", count, op, plainLength);
        for (int k = 0; k < count; k++, op++) {
          out[op] = out[op - back]; // byte by byte: the copy may overlap its own output
        }
      }
    }
    if (op != plainLength) {
      throw bad(end, "decompressed to " + op + " bytes (expected: " + plainLength + ")");
    }
    return out;
  }

  /** Requires a run of {@code count} bytes at plain offset {@code op} to end by {@code plain}. */
  private static void requireRoom(int run, String what, int count, int op, int plain) {
    if (count > plain - op) {
      throw bad(
          run,
          what
              + " of "
              + count
              + " bytes at plain offset "
              + op
              + " (expected: at most "
              + (plain - op)
              + ")");
    }
  }

  private static DumpPayloadException bad(long offset, String detail) {
    return new DumpPayloadException(DumpPayloadException.Kind.CONTENT, "LZF data", offset, detail);
  }
}
