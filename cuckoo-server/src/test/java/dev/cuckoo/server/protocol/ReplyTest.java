package dev.cuckoo.server.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledByteBufAllocator;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The numbers of replies, written as digits straight into the buffer; a stream that keeps none. */
class ReplyTest {
  private static String written(Reply reply) {
    ByteBuf out = reply.take();
    try {
      return out.toString(StandardCharsets.US_ASCII);
    } finally {
      out.release();
    }
  }

  @Test
  void integer_everyMagnitudeAndSign_writtenAsLongToString() {
    long[] values = {
      0,
      1,
      -1,
      2,
      9,
      10,
      11,
      99,
      100,
      101,
      12345,
      -10,
      -99,
      -100,
      1_000_000_007L,
      999_999_999_999_999_999L,
      Long.MAX_VALUE,
      Long.MIN_VALUE,
      Long.MIN_VALUE + 1
    };
    Reply reply = new Reply(UnpooledByteBufAllocator.DEFAULT);
    StringBuilder expected = new StringBuilder();
    for (long value : values) {
      reply.integer(value);
      expected.append(':').append(value).append("\r\n");
    }
    for (long value = -1000; value <= 100_000; value += 7) {
      reply.integer(value);
      expected.append(':').append(value).append("\r\n");
    }
    assertEquals(expected.toString(), written(reply));
  }

  @Test
  void bulkAndArray_lengths_writtenInDecimal() {
    Reply reply = new Reply(UnpooledByteBufAllocator.DEFAULT);
    reply.array(12);
    reply.bulk(new byte[1000]);
    assertEquals("*12\r\n$1000\r\n" + "\0".repeat(1000) + "\r\n", written(reply));
  }

  @Test
  void discarding_repliesAppended_keepsNothingButALeadingError() {
    Reply reply = Reply.discarding();
    reply.array(2);
    reply.integer(1);
    reply.bulk("value");
    assertNull(reply.take());
    assertEquals(0, reply.pendingBytes());
    assertNull(reply.takeErrorReply());
    reply.error("ERR no such key\r\nsecond line");
    reply.error("ERR another");
    assertEquals("ERR no such key  second line", reply.takeErrorReply());
    assertNull(reply.takeErrorReply());
    // an error inside a reply that began otherwise (EXEC's array) is not the reply's error
    reply.ok();
    reply.error("ERR inside");
    assertNull(reply.takeErrorReply());
    assertEquals(3, reply.errors());
  }
}
