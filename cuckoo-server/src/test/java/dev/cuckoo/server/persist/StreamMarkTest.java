package dev.cuckoo.server.persist;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * The stream position a record logged without a mark moves to: its bytes as a master sends them
 * (checked against the RESP written out by hand), and when a mark may be left out.
 */
class StreamMarkTest {
  private static final String ID = "a".repeat(40);

  private static byte[][] args(String... words) {
    byte[][] args = new byte[words.length][];
    for (int i = 0; i < words.length; i++) {
      args[i] = words[i].getBytes(StandardCharsets.UTF_8);
    }
    return args;
  }

  private static long bytes(String resp) {
    return resp.getBytes(StandardCharsets.UTF_8).length;
  }

  @Test
  void next_sameDatabase_movesByTheCommandAlone() {
    StreamMark at = new StreamMark(ID, 100, 100, 0);
    StreamMark next = at.next(0, args("CF.ADD", "cf", "12345"));
    assertEquals(100 + bytes("*3\r\n$6\r\nCF.ADD\r\n$2\r\ncf\r\n$5\r\n12345\r\n"), next.after());
    assertEquals(next.after(), next.before());
    assertEquals(0, next.db());
  }

  @Test
  void next_otherDatabase_movesBySelectAndCommand() {
    StreamMark at = new StreamMark(ID, 7, 7, 0);
    StreamMark next = at.next(12, args("DEL", "k"));
    assertEquals(
        7 + bytes("*2\r\n$6\r\nSELECT\r\n$2\r\n12\r\n*2\r\n$3\r\nDEL\r\n$1\r\nk\r\n"),
        next.after());
    assertEquals(12, next.db());
  }

  @Test
  void next_transaction_movesByMultiWritesWithSelectsAndExec() {
    Transaction transaction = new Transaction(2);
    transaction.add(3, args("CF.ADD", "a", "x"));
    transaction.add(0, args("CF.ADD", "b", "y"));
    StreamMark next = new StreamMark(ID, 0, 0, 0).next(3, transaction.encode());
    String resp =
        "*2\r\n$6\r\nSELECT\r\n$1\r\n3\r\n*1\r\n$5\r\nMULTI\r\n"
            + "*3\r\n$6\r\nCF.ADD\r\n$1\r\na\r\n$1\r\nx\r\n"
            + "*2\r\n$6\r\nSELECT\r\n$1\r\n0\r\n*3\r\n$6\r\nCF.ADD\r\n$1\r\nb\r\n$1\r\ny\r\n"
            + "*1\r\n$4\r\nEXEC\r\n";
    assertEquals(bytes(resp), next.after());
    assertEquals(0, next.db());
  }

  @Test
  void next_argumentLengthsAtPowersOfTen_countEveryDigit() {
    for (int length : new int[] {9, 10, 11, 99, 100, 999, 1000, 10_000}) {
      String value = "v".repeat(length);
      StreamMark next = new StreamMark(ID, 0, 0, 0).next(0, args("SET", "k", value));
      String resp = "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$" + length + "\r\n" + value + "\r\n";
      assertEquals(bytes(resp), next.after(), "value of " + length + " bytes");
    }
  }

  @Test
  void args_offsetsAtPowersOfTen_readBackAsWritten() {
    long[] offsets = {0, 9, 10, 99, 100, 999_999_999_999_999_999L, 1_000_000_000_000_000_000L};
    for (long offset : offsets) {
      StreamMark mark = new StreamMark(ID, offset, Long.MAX_VALUE, 10);
      assertEquals(mark, StreamMark.of(mark.args()), "offset " + offset);
      assertEquals(Long.toString(offset), new String(mark.args()[3], StandardCharsets.US_ASCII));
    }
  }

  @Test
  void continuedBy_recordRightAfter_needsNoMark() {
    StreamMark at = new StreamMark(ID, 0, 50, 0).settled();
    byte[][] write = args("CF.ADD", "cf", "1");
    StreamMark next = at.next(0, write);
    assertTrue(at.continuedBy(new StreamMark(ID, 50, next.after(), 0), 0, write));
  }

  @Test
  void continuedBy_pingInBetweenOrNewIdOrNoStreamBytes_needsAMark() {
    StreamMark at = new StreamMark(ID, 50, 50, 0);
    byte[][] write = args("CF.ADD", "cf", "1");
    long length = at.next(0, write).after() - 50;
    // a PING (14 bytes) before the record
    assertFalse(at.continuedBy(new StreamMark(ID, 64, 64 + length, 0), 0, write));
    assertFalse(at.continuedBy(new StreamMark("b".repeat(40), 50, 50 + length, 0), 0, write));
    // a writable replica's own write: not in the stream
    assertFalse(at.continuedBy(at, 0, write));
    assertFalse(StreamMark.NONE.continuedBy(new StreamMark(ID, -1, length - 1, 0), 0, write));
  }
}
