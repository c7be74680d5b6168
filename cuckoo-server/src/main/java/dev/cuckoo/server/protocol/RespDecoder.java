package dev.cuckoo.server.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.util.ByteProcessor;
import io.netty.util.concurrent.FastThreadLocal;
import java.util.Arrays;
import java.util.List;

/**
 * A bounded RESP2 request decoder: turns arrays of bulk strings and inline commands into {@code
 * byte[][]} argument vectors.
 *
 * <p>It is an explicit state machine that keeps its place between reads, so a request that arrives
 * a byte at a time costs no re-parsing. Nothing is allocated in proportion to a length a client
 * claims: the argument vector grows as arguments arrive, and a bulk string that is not buffered
 * whole is copied out of each read as it arrives, into an array of less than four times what has
 * arrived (see growBody). Limits: bulk length, argument count, total bytes per request and the 64
 * KiB header/inline line; before the connection authenticates (when a password is set), Redis's
 * pre-AUTH limits of 10 arguments and 16384-byte bulks. A protocol violation emits one {@link
 * ProtocolError} (answered with an error reply and a close by the handler) and every later byte is
 * discarded. Each call emits at most one request, so the handler runs it before the next is
 * decoded: an AUTH lifts the pre-AUTH limits for the request behind it.
 *
 * <p>With a {@link #lookahead} set, the complete requests that the look ahead has already parsed
 * (in its per-thread copy of the buffered bytes) are not parsed again: each is checked against the
 * limits as it is emitted and its arguments are copied out of that copy. A request that breaks a
 * limit, or one whose copy another connection on the same thread has since replaced, takes the
 * state machine, which answers as it always did.
 */
public final class RespDecoder extends ByteToMessageDecoder {
  /*
   * Why big bulks bypass the cumulation buffer: ByteToMessageDecoder merges each read into one
   * buffer until decode() consumes it, and that buffer grows by 4 MiB steps once past 4 MiB
   * (ByteBufAllocator.calculateNewCapacity), copying everything buffered at each step. Waiting for
   * a whole 400 MiB bulk there copied about 20 GB: tens of seconds (docs/server-benchmark.md).
   * Copying each read into the argument's own array instead empties the cumulation after every
   * read (the base class then releases it), so each byte is copied once from the socket buffer,
   * plus about a third more for the copies as the array grows: linear in the request size. Netty
   * reads a connection in bounded slices (at most 16 reads of at most 64 KiB per turn of the event
   * loop, by default), and decoding a slice is now linear in it, so other connections on the same
   * event loop are not starved while a big request arrives.
   */

  /** Longest inline command or header line, as in Redis (PROTO_INLINE_MAX_SIZE). */
  static final int MAX_LINE = 64 * 1024;

  // a type byte, up to 18 digits, CR, LF and a byte of slack: what quickHeader copies at most
  private static final int QUICK_HEADER_BYTES = 22;

  /** Most arguments in one request before AUTH, as in Redis (processMultibulkBuffer). */
  static final int MAX_UNAUTHENTICATED_ARGS = 10;

  /** Longest bulk string before AUTH, as in Redis (processMultibulkBuffer). */
  static final int MAX_UNAUTHENTICATED_BULK = 16384;

  private static final byte[][] NO_ARGS = new byte[0][];
  private static final byte[] NO_NAME = new byte[0];

  /** Most requests one look ahead shows: a long pipeline is shown in parts of this many. */
  static final int LOOKAHEAD_REQUESTS = 64;

  /** Most arguments of a request a look ahead shows; a longer one ends the look. */
  static final int LOOKAHEAD_ARGS = 64;

  /**
   * Most buffered bytes one look ahead copies and reads: requests past them wait for the next look.
   * 64 pipelined CF.EXISTS of short items take about 3 KiB; a look before a request too big to be
   * shown copies no more than this.
   */
  static final int LOOKAHEAD_BYTES = 4 * 1024;

  /**
   * Most arguments the requests of one look ahead hold together: every argument takes at least six
   * bytes ({@code $0\r\n\r\n}) of the {@link #LOOKAHEAD_BYTES} looked at.
   */
  private static final int LOOKAHEAD_ALL_ARGS = LOOKAHEAD_BYTES / 6 + 1;

  /** Longest command name handed out again by {@link #lastName} (Redis's longest is 26 bytes). */
  private static final int MAX_REUSED_NAME = 32;

  /** A request that broke the protocol; the handler replies with the message and closes. */
  public static final class ProtocolError {
    private final String message;

    public ProtocolError(String message) {
      this.message = message;
    }

    /** Returns the error text without the leading dash, e.g. "ERR Protocol error: ...". */
    public String message() {
      return message;
    }
  }

  private enum State {
    START,
    BULK_HEADER,
    BULK_BODY,
    FAILED
  }

  private final long maxBulkLength;
  private final int maxArrayLength;
  private final long maxRequestBytes;
  private final Authentication authentication;
  private final byte[] digits = new byte[QUICK_HEADER_BYTES];
  private int headerEnd;

  private State state = State.START;
  private byte[][] args = NO_ARGS;
  private int argCount;
  private int expectedArgs;
  private int bulkLength;
  private long requestBytes;

  /**
   * The command name of the last request (its first argument), handed out again while requests
   * repeat it: a pipeline of one command then copies no name. Arguments are never modified.
   */
  private byte[] lastName = NO_NAME;

  /** The bulk string being copied out read by read, or null; never longer than bulkLength. */
  private byte[] body;

  private int bodyFilled;
  private ProtocolError failure;
  private long receivedBytes;

  /** Shown the complete requests buffered ahead, or null. */
  private RequestLookahead lookahead;

  /** The stream offset up to which buffered requests were shown (or passed over) already. */
  private long lookedAheadTo;

  /** Requests emitted from the look ahead's parse instead of the state machine's (for tests). */
  private long requestsFromLookahead;

  /**
   * Creates a decoder with the given limits.
   *
   * @param maxBulkLength longest bulk string accepted, in bytes, at most 2^31-64
   * @param maxArrayLength most arguments accepted in one request
   * @param maxRequestBytes most argument bytes accepted in one request
   * @param authentication whether the connection has authenticated (pre-AUTH limits apply until)
   */
  public RespDecoder(
      long maxBulkLength, int maxArrayLength, long maxRequestBytes, Authentication authentication) {
    this.maxBulkLength = maxBulkLength;
    this.maxArrayLength = maxArrayLength;
    this.maxRequestBytes = maxRequestBytes;
    this.authentication = authentication;
  }

  /**
   * Returns the bytes this connection has received so far (CLIENT LIST's tot-net-in; the handler
   * after the decoder adds what came since its last look to INFO's total_net_input_bytes).
   */
  public long receivedBytes() {
    return receivedBytes;
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) throws Exception {
    if (msg instanceof ByteBuf bytes) {
      receivedBytes += bytes.readableBytes();
    }
    super.channelRead(ctx, msg);
  }

  /**
   * Shows the complete requests buffered ahead to {@code lookahead} before they are decoded: each
   * time the decoder starts a request at or past the bytes it showed last, it shows the complete
   * requests from there (at most {@link #LOOKAHEAD_REQUESTS} in the first {@link #LOOKAHEAD_BYTES}
   * bytes, arrays of bulk strings of at most {@link #LOOKAHEAD_ARGS} arguments; an inline command
   * or a longer array ends the look), then {@link RequestLookahead#end}. What is emitted is
   * unchanged: the requests shown are emitted one at a time from the look's parse, each checked
   * against the limits when it is emitted, and anything else is decoded by the state machine.
   *
   * @param lookahead what to show the requests to, or null for nothing
   */
  public void lookahead(RequestLookahead lookahead) {
    this.lookahead = lookahead;
  }

  /**
   * Shows the complete requests buffered from the reader index (stream offset {@code position}).
   * The bytes are copied once into a per-thread array and scanned there. Bytes passed over (an
   * incomplete request, one of a shape not shown, those after a request the look ahead declined)
   * are not looked at again, so a request arriving in many reads costs one look, not one per read.
   */
  private void lookAhead(ByteBuf in, long position) {
    Scratch scratch = SCRATCH.get();
    int length = Math.min(in.readableBytes(), LOOKAHEAD_BYTES);
    byte[] bytes = scratch.bytes;
    in.getBytes(in.readerIndex(), bytes, 0, length);
    scratch.owner = this;
    scratch.position = position;
    scratch.requests = 0;
    scratch.next = 0;
    int index = 0;
    while (scratch.requests < LOOKAHEAD_REQUESTS) {
      int next = scanRequest(scratch, index, length);
      if (next < 0) {
        index = length;
        break;
      }
      int request = scratch.requests++;
      scratch.requestEnds[request] = next;
      int first = scratch.firstArgs[request];
      int count = scratch.argCounts[request];
      System.arraycopy(scratch.allStarts, first, scratch.starts, 0, count);
      System.arraycopy(scratch.allLengths, first, scratch.lengths, 0, count);
      if (!lookahead.request(bytes, scratch.starts, scratch.lengths, count)) {
        index = length;
        break;
      }
      index = next;
    }
    lookedAheadTo = position + index;
    if (scratch.requests > 0) {
      lookahead.end();
    } else {
      scratch.owner = null;
    }
  }

  /**
   * Emits the next request the look ahead parsed, if the reader index ({@code position}) is at its
   * start and the thread's copy still holds it, and it keeps every limit (checked now: an AUTH may
   * have run since the look). Returns false to leave the request to the state machine, which then
   * parses it as it would have anyway, errors included.
   */
  private boolean emitLookedAhead(ByteBuf in, long position, List<Object> out) {
    Scratch scratch = SCRATCH.get();
    if (scratch.owner != this) {
      return false;
    }
    int request = scratch.next;
    int start = request == 0 ? 0 : scratch.requestEnds[request - 1];
    if (request == scratch.requests || scratch.position + start != position) {
      return false;
    }
    int count = scratch.argCounts[request];
    boolean authenticated = authentication.authenticated();
    if (count > maxArrayLength || count > MAX_UNAUTHENTICATED_ARGS && !authenticated) {
      return false;
    }
    int first = scratch.firstArgs[request];
    long total = 0;
    for (int i = first; i < first + count; i++) {
      int length = scratch.allLengths[i];
      total += length;
      if (length > maxBulkLength
          || length > MAX_UNAUTHENTICATED_BULK && !authenticated
          || total > maxRequestBytes) {
        return false;
      }
    }
    byte[] bytes = scratch.bytes;
    byte[][] decoded = new byte[count][];
    for (int i = 0; i < count; i++) {
      int from = scratch.allStarts[first + i];
      int length = scratch.allLengths[first + i];
      byte[] arg;
      if (i == 0
          && length == lastName.length
          && length != 0
          && Arrays.equals(bytes, from, from + length, lastName, 0, length)) {
        arg = lastName;
      } else {
        arg = Arrays.copyOfRange(bytes, from, from + length);
        if (i == 0 && length <= MAX_REUSED_NAME) {
          lastName = arg;
        }
      }
      decoded[i] = arg;
    }
    // readerIndex, not skipBytes: the bytes are known to be buffered (skipBytes checks again)
    in.readerIndex(in.readerIndex() + scratch.requestEnds[request] - start);
    if (++scratch.next == scratch.requests) {
      scratch.owner = null;
    }
    requestBytes = total;
    requestsFromLookahead++;
    out.add(decoded);
    return true;
  }

  /** Returns how many requests were emitted from the look ahead's parse (for tests). */
  long requestsFromLookahead() {
    return requestsFromLookahead;
  }

  @Override
  protected void handlerRemoved0(ChannelHandlerContext ctx) {
    Scratch scratch = SCRATCH.getIfExists();
    if (scratch != null && scratch.owner == this) {
      scratch.owner = null;
    }
  }

  /**
   * A thread's space for looking ahead: the bytes copied, the requests found in them and their
   * arguments, and which decoder they belong to. Connections on one event loop share it: the last
   * to look owns it, and another decoder's requests in it are never emitted.
   */
  private static final class Scratch {
    final byte[] bytes = new byte[LOOKAHEAD_BYTES];

    /** One request's arguments, as {@link RequestLookahead#request} is shown them. */
    final int[] starts = new int[LOOKAHEAD_ARGS];

    final int[] lengths = new int[LOOKAHEAD_ARGS];

    /** Every argument of the requests found, request after request. */
    final int[] allStarts = new int[LOOKAHEAD_ALL_ARGS];

    final int[] allLengths = new int[LOOKAHEAD_ALL_ARGS];

    /** Per request found: its first argument in allStarts, its argument count, its end. */
    final int[] firstArgs = new int[LOOKAHEAD_REQUESTS];

    final int[] argCounts = new int[LOOKAHEAD_REQUESTS];
    final int[] requestEnds = new int[LOOKAHEAD_REQUESTS];

    /** The decoder whose buffered bytes these are, or null. */
    RespDecoder owner;

    /** The owner's stream offset of bytes[0]. */
    long position;

    /** Requests found, and the next of them to emit. */
    int requests;

    int next;
  }

  private static final FastThreadLocal<Scratch> SCRATCH =
      new FastThreadLocal<>() {
        @Override
        protected Scratch initialValue() {
          return new Scratch();
        }
      };

  /**
   * Finds the arguments of the array of bulk strings at {@code index} of the scratch bytes; returns
   * the index after it, or -1 if it is not complete before {@code end} or not of that shape. Only a
   * look: the bytes are decoded and checked again.
   */
  private static int scanRequest(Scratch scratch, int index, int end) {
    byte[] bytes = scratch.bytes;
    long header = scanHeader(bytes, index, end, (byte) '*');
    int count = (int) (header >> 32);
    if (header < 0 || count == 0 || count > LOOKAHEAD_ARGS) {
      return -1;
    }
    int request = scratch.requests;
    int first = request == 0 ? 0 : scratch.firstArgs[request - 1] + scratch.argCounts[request - 1];
    int at = (int) header;
    for (int i = 0; i < count; i++) {
      header = scanHeader(bytes, at, end, (byte) '$');
      if (header < 0) {
        return -1;
      }
      int length = (int) (header >> 32);
      int start = (int) header;
      if (end - start < length + 2L) {
        return -1;
      }
      scratch.allStarts[first + i] = start;
      scratch.allLengths[first + i] = length;
      at = start + length + 2;
    }
    scratch.firstArgs[request] = first;
    scratch.argCounts[request] = count;
    return at;
  }

  /**
   * Reads a header line at {@code index}: the {@code type} byte, 1 to 9 digits without a leading
   * zero (or a lone 0, as {@link #quickHeader} takes them), CRLF. Returns the number in the high 32
   * bits and the index after the LF in the low ones, or -1 for anything else (which the look ahead
   * passes over, and the state machine parses).
   */
  private static long scanHeader(byte[] bytes, int index, int end, byte type) {
    if (end - index < 4
        || bytes[index] != type
        || bytes[index + 1] == '0' && bytes[index + 2] != '\r') {
      return -1;
    }
    long value = 0;
    int i = index + 1;
    int last = Math.min(end, index + 10);
    for (; i < last; i++) {
      int digit = bytes[i] - '0';
      if (digit < 0 || digit > 9) {
        break;
      }
      value = value * 10 + digit;
    }
    if (i == index + 1 || end - i < 2 || bytes[i] != '\r' || bytes[i + 1] != '\n') {
      return -1;
    }
    return value << 32 | (i + 2);
  }

  /** Returns how many received bytes wait in the cumulation buffer (for tests). */
  int bufferedBytes() {
    return actualReadableBytes();
  }

  /**
   * Returns the received bytes held and not yet turned into arguments (CLIENT LIST's {@code qbuf}):
   * the unparsed bytes of the cumulation buffer plus the part of a bulk string being copied out
   * read by read, as Redis's query buffer holds a big argument until it is whole.
   */
  public long heldBytes() {
    return actualReadableBytes() + (long) bodyFilled;
  }

  /**
   * Returns the room left in what holds those bytes (CLIENT LIST's {@code qbuf-free}): the
   * cumulation buffer's writable bytes plus the unfilled part of the bulk string's array.
   */
  public long freeBytes() {
    ByteBuf cumulation = internalBuffer();
    long free = cumulation.isReadable() ? cumulation.writableBytes() : 0;
    return free + (body == null ? 0 : body.length - bodyFilled);
  }

  /**
   * Returns the bytes of the arguments of the request being received that are already whole
   * (Redis's {@code argv_len_sum} while a request is incomplete), 0 between requests.
   */
  public long partialArgumentBytes() {
    return state == State.BULK_HEADER || state == State.BULK_BODY ? requestBytes : 0;
  }

  /**
   * Returns the bytes the decoder has allocated for input: the cumulation buffer's capacity (0 once
   * it is released between reads) and the array of a bulk string being copied out.
   */
  public long allocatedBytes() {
    ByteBuf cumulation = internalBuffer();
    return (cumulation.isReadable() ? cumulation.capacity() : 0) + (body == null ? 0 : body.length);
  }

  /**
   * Returns up to {@code max} of the held bytes from their start (the head of Redis's query buffer,
   * which its query buffer limit log line shows).
   */
  public byte[] heldHead(int max) {
    ByteBuf cumulation = internalBuffer();
    int readable = actualReadableBytes();
    if (readable > 0) {
      byte[] head = new byte[Math.min(max, readable)];
      cumulation.getBytes(cumulation.readerIndex(), head);
      return head;
    }
    return body == null ? new byte[0] : Arrays.copyOf(body, Math.min(max, bodyFilled));
  }

  @Override
  protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
    if (lookahead != null && state == State.START) {
      long position = receivedBytes - in.readableBytes();
      if (position >= lookedAheadTo) {
        lookAhead(in, position);
      }
      if (emitLookedAhead(in, position, out)) {
        return;
      }
    }
    try {
      decodeAvailable(in, out);
    } finally {
      if (failure != null) {
        out.add(failure);
        failure = null;
      }
    }
  }

  private void decodeAvailable(ByteBuf in, List<Object> out) {
    while (in.isReadable()) {
      boolean progress;
      switch (state) {
        case START:
          progress =
              in.getByte(in.readerIndex()) == '*' ? readArrayHeader(in) : readInline(in, out);
          break;
        case BULK_HEADER:
          progress = readBulkHeader(in);
          break;
        case BULK_BODY:
          progress = readBulkBody(in, out);
          break;
        case FAILED:
        default:
          in.skipBytes(in.readableBytes());
          progress = false;
          break;
      }
      if (!progress || !out.isEmpty()) {
        return;
      }
    }
  }

  private void fail(ByteBuf in, String message) {
    failure = new ProtocolError("ERR Protocol error: " + message);
    state = State.FAILED;
    args = NO_ARGS;
    body = null;
    in.skipBytes(in.readableBytes());
  }

  /** Returns the index of the '\n' ending the line at the reader index, or -1 if not buffered. */
  private static int findLineEnd(ByteBuf in) {
    return in.forEachByte(
        in.readerIndex(), Math.min(in.readableBytes(), MAX_LINE + 2), ByteProcessor.FIND_LF);
  }

  /** Parses the decimal number in [from, to) like Redis's string2ll; returns null if invalid. */
  private Long parseLong(ByteBuf in, int from, int to) {
    int length = to - from;
    if (length <= 0 || length > 20) {
      return null;
    }
    // headers come three or more per request: parse them in a reused buffer
    in.getBytes(from, digits, 0, length);
    return Numbers.parseLong(digits, length);
  }

  /**
   * Reads the common header shape, a type byte, 1 to 18 digits without a leading zero (or a lone 0)
   * and CRLF, in one copy of at most 22 bytes: returns the number and sets {@link #headerEnd} to
   * the index after the LF, or returns -1 for anything else (incomplete, signed, longer or
   * malformed lines take the general path, with its errors).
   */
  private long quickHeader(ByteBuf in) {
    int n = Math.min(in.readableBytes(), QUICK_HEADER_BYTES);
    if (n < 4) {
      return -1;
    }
    in.getBytes(in.readerIndex(), digits, 0, n);
    long value = 0;
    int i = 1;
    for (; i < n && i <= 18; i++) {
      int digit = digits[i] - '0';
      if (digit < 0 || digit > 9) {
        break;
      }
      value = value * 10 + digit;
    }
    int count = i - 1;
    if (count == 0
        || (digits[1] == '0' && count > 1)
        || i + 1 >= n
        || digits[i] != '\r'
        || digits[i + 1] != '\n') {
      return -1;
    }
    headerEnd = in.readerIndex() + i + 2;
    return value;
  }

  private static int contentEnd(ByteBuf in, int lf) {
    return lf > in.readerIndex() && in.getByte(lf - 1) == '\r' ? lf - 1 : lf;
  }

  private boolean readArrayHeader(ByteBuf in) {
    long quick = quickHeader(in);
    Long count;
    int end;
    if (quick >= 0) {
      count = quick;
      end = headerEnd;
    } else {
      int lf = findLineEnd(in);
      if (lf < 0) {
        if (in.readableBytes() > MAX_LINE) {
          fail(in, "too big mbulk count string");
        }
        return false;
      }
      count = parseLong(in, in.readerIndex() + 1, contentEnd(in, lf));
      end = lf + 1;
    }
    if (count == null || count > maxArrayLength) {
      fail(in, "invalid multibulk length");
      return true;
    }
    if (count > MAX_UNAUTHENTICATED_ARGS && !authentication.authenticated()) {
      fail(in, "unauthenticated multibulk length");
      return true;
    }
    in.readerIndex(end);
    if (count > 0) {
      expectedArgs = (int) (long) count;
      args = new byte[Math.min(expectedArgs, 16)][];
      argCount = 0;
      requestBytes = 0;
      state = State.BULK_HEADER;
    }
    return true;
  }

  private boolean readBulkHeader(ByteBuf in) {
    byte first = in.getByte(in.readerIndex());
    if (first != '$') {
      fail(in, "expected '$', got '" + (char) (first & 0xff) + "'");
      return true;
    }
    long length = quickHeader(in);
    int end;
    if (length >= 0) {
      end = headerEnd;
    } else {
      int lf = findLineEnd(in);
      if (lf < 0) {
        if (in.readableBytes() > MAX_LINE) {
          fail(in, "too big bulk count string");
        }
        return false;
      }
      Long parsed = parseLong(in, in.readerIndex() + 1, contentEnd(in, lf));
      length = parsed == null ? -1 : parsed;
      end = lf + 1;
    }
    if (length < 0 || length > maxBulkLength) {
      fail(in, "invalid bulk length");
      return true;
    }
    if (length > MAX_UNAUTHENTICATED_BULK && !authentication.authenticated()) {
      fail(in, "unauthenticated bulk length");
      return true;
    }
    if (requestBytes + length > maxRequestBytes) {
      fail(in, "too big request");
      return true;
    }
    in.readerIndex(end);
    bulkLength = (int) length;
    state = State.BULK_BODY;
    return true;
  }

  private boolean readBulkBody(ByteBuf in, List<Object> out) {
    byte[] arg;
    if (body == null && in.readableBytes() >= bulkLength + 2L) {
      if (argCount == 0 && isLastName(in)) {
        arg = lastName;
        in.skipBytes(bulkLength);
      } else {
        arg = new byte[bulkLength];
        in.readBytes(arg);
        if (argCount == 0 && bulkLength <= MAX_REUSED_NAME) {
          lastName = arg;
        }
      }
    } else {
      int chunk = Math.min(bulkLength - bodyFilled, in.readableBytes());
      if (chunk > 0) {
        growBody(bodyFilled + chunk);
        in.readBytes(body, bodyFilled, chunk);
        bodyFilled += chunk;
      }
      if (bodyFilled < bulkLength || in.readableBytes() < 2) {
        return false;
      }
      arg = body == null ? new byte[0] : body;
      body = null;
      bodyFilled = 0;
    }
    in.skipBytes(2);
    requestBytes += bulkLength;
    if (argCount == args.length) {
      args = Arrays.copyOf(args, Math.min(expectedArgs, args.length * 2));
    }
    args[argCount++] = arg;
    if (argCount == expectedArgs) {
      out.add(args);
      args = NO_ARGS;
      state = State.START;
    } else {
      state = State.BULK_HEADER;
    }
    return true;
  }

  /** Returns true if the buffered bulk string at the reader index is {@link #lastName}. */
  private boolean isLastName(ByteBuf in) {
    if (bulkLength != lastName.length || bulkLength == 0) {
      return false;
    }
    int from = in.readerIndex();
    for (int i = 0; i < bulkLength; i++) {
      if (in.getByte(from + i) != lastName[i]) {
        return false;
      }
    }
    return true;
  }

  /**
   * Makes room for {@code needed} body bytes. The array's sizes are the claimed length divided by
   * powers of 4 (rounded up), the smallest that holds {@code needed}: less than four times what has
   * arrived, and when the full length is allocated the array it replaces is at most a quarter of
   * it. Doubling instead held up to 1.64x a 400 MiB bulk at once (256 + 400 MiB, both humongous G1
   * regions that a full GC does not move) and failed with OutOfMemoryError under -Xmx1g in
   * big-bulk.sh; with quarters the peak is 1.25x.
   */
  private void growBody(int needed) {
    int capacity = body == null ? 0 : body.length;
    if (needed > capacity) {
      int grown = bulkLength;
      while (grown > 1 && (grown + 3) / 4 >= needed) {
        grown = (grown + 3) / 4;
      }
      body = body == null ? new byte[grown] : Arrays.copyOf(body, grown);
    }
  }

  private boolean readInline(ByteBuf in, List<Object> out) {
    int lf = findLineEnd(in);
    if (lf < 0) {
      if (in.readableBytes() > MAX_LINE) {
        fail(in, "too big inline request");
      }
      return false;
    }
    int from = in.readerIndex();
    int to = contentEnd(in, lf);
    byte[] line = new byte[to - from];
    in.getBytes(from, line);
    in.readerIndex(lf + 1);
    byte[][] parsed = InlineParser.split(line);
    if (parsed == null) {
      fail(in, "unbalanced quotes in request");
      return true;
    }
    if (parsed.length > 0) {
      out.add(parsed);
    }
    return true;
  }
}
