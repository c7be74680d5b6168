package dev.cuckoo.spark;

import dev.cuckoo.AddOutcome;
import dev.cuckoo.CuckooFilter;
import dev.cuckoo.MembershipFilter;
import dev.cuckoo.RedisCuckooFilter;
import dev.cuckoo.Scheme;
import java.io.ByteArrayOutputStream;
import java.io.Externalizable;
import java.io.IOException;
import java.io.ObjectInput;
import java.io.ObjectOutput;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.util.Arrays;

/**
 * The aggregation buffer of {@code cuckoo_filter_agg}: the part of the filter one task has built.
 *
 * <p>It starts as a list of 8-byte item hashes and becomes a filter once the list would be about as
 * large as the filter ({@link FilterSpec#hashLimit}): Spark serializes every partial buffer between
 * the partial and the final aggregation, and a partition holding few items ships its hashes, not a
 * whole, mostly empty table. Two filters merge with the core's all-or-nothing {@link
 * CuckooFilter#addAll} (or {@link RedisCuckooFilter#addAll}); hashes go into a filter with {@code
 * addIfAbsentWithOutcomeHash}, so a value repeated within a partition is stored once.
 *
 * <p>Not thread-safe; Spark gives each buffer to one task. Not part of the API: the class is public
 * only because Spark's Java-serialization encoder ({@code Encoders.javaSerialization}) accepts
 * public classes only; its methods are package-private.
 */
public final class PartialFilter implements Externalizable {
  private static final long serialVersionUID = 1L;
  private static final long[] NO_HASHES = new long[0];
  private static final int FIRST_CAPACITY = 1024;

  private FilterSpec spec;
  private long[] hashes = NO_HASHES;
  private int hashCount;
  private MembershipFilter<Object> filter;

  /** Creates an empty buffer; for Java deserialization only. */
  public PartialFilter() {}

  PartialFilter(FilterSpec spec) {
    this.spec = spec;
  }

  /** Adds one item by its hash. */
  void add(long hash) {
    if (filter != null) {
      insert(filter, hash);
      return;
    }
    if (hashCount == hashes.length) {
      if (hashCount >= spec.hashLimit) {
        becomeFilter();
        insert(filter, hash);
        return;
      }
      long grown = Math.min(Math.max(FIRST_CAPACITY, 2L * hashCount), Math.max(1, spec.hashLimit));
      hashes = Arrays.copyOf(hashes, (int) Math.min(grown, Integer.MAX_VALUE - 8));
    }
    hashes[hashCount++] = hash;
  }

  /**
   * Returns the union of this buffer and {@code other}; either may be changed and returned.
   *
   * @throws IllegalStateException with the counts if the union does not fit
   */
  PartialFilter merge(PartialFilter other) {
    if (filter == null && other.filter != null) {
      return other.merge(this);
    }
    if (other.filter != null) {
      mergeFilter(other.filter);
      return this;
    }
    for (int i = 0; i < other.hashCount; i++) {
      add(other.hashes[i]);
    }
    return this;
  }

  /** Returns the finished filter in the core's binary format. */
  byte[] toBytes() {
    if (filter == null) {
      becomeFilter();
    }
    return serialized();
  }

  /** Returns how many 8-byte hashes are buffered (0 once this is a filter). */
  int bufferedHashes() {
    return hashCount;
  }

  /** Returns whether the buffer has become a filter. */
  boolean isFilter() {
    return filter != null;
  }

  private void becomeFilter() {
    MembershipFilter<Object> created = spec.newFilter();
    for (int i = 0; i < hashCount; i++) {
      insert(created, hashes[i]);
    }
    filter = created;
    hashes = NO_HASHES;
    hashCount = 0;
  }

  private void insert(MembershipFilter<Object> target, long hash) {
    if (target.addIfAbsentWithOutcomeHash(hash) == AddOutcome.FULL) {
      throw new IllegalStateException(
          spec.functionName()
              + ": the "
              + spec
              + " is full: "
              + target.size()
              + " fingerprints stored, capacity "
              + target.capacity()
              + " (expected: expectedItems at least the number of distinct non-null values)");
    }
  }

  private void mergeFilter(MembershipFilter<Object> other) {
    if (filter == null) {
      becomeFilter();
    }
    long mine = filter.size();
    if (!FilterSpec.addAll(filter, other)) {
      throw new IllegalStateException(
          spec.functionName()
              + ": cannot merge two partial filters of the "
              + spec
              + ": "
              + mine
              + " + "
              + other.size()
              + " fingerprints do not fit in "
              + FilterSpec.slots(filter)
              + " slots (capacity "
              + filter.capacity()
              + "); nothing was merged (expected: expectedItems at least the number of distinct"
              + " non-null values)");
    }
  }

  /** Returns the filter in the core's binary format, written into an array of exactly its size. */
  static byte[] serialize(CuckooFilter<?> filter) {
    return exactly(filter.serializedSizeInBytes(), filter::writeTo);
  }

  /** Returns this buffer's filter as {@link FilterSpec#writeTo} writes it, in an exact array. */
  private byte[] serialized() {
    return exactly(spec.serializedSizeInBytes(filter), out -> spec.writeTo(filter, out));
  }

  /** Writes bytes to a stream. */
  private interface Writer {
    void write(OutputStream out) throws IOException;
  }

  private static byte[] exactly(long size, Writer writer) {
    ExactBytes out = new ExactBytes(size);
    try {
      writer.write(out);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.bytes();
  }

  /**
   * Writes the specification and the hashes or the filter (in the core's format).
   *
   * @param out the stream
   * @throws IOException if {@code out} fails
   */
  @Override
  public void writeExternal(ObjectOutput out) throws IOException {
    out.writeByte(spec.scheme.ordinal());
    out.writeByte(spec.kind.ordinal());
    out.writeLong(spec.expectedItems);
    out.writeDouble(spec.falsePositiveRate);
    out.writeLong(spec.hashLimit);
    if (filter == null) {
      out.writeBoolean(false);
      out.writeInt(hashCount);
      for (int i = 0; i < hashCount; i++) {
        out.writeLong(hashes[i]);
      }
    } else {
      out.writeBoolean(true);
      byte[] bytes = serialized();
      out.writeInt(bytes.length);
      out.write(bytes);
    }
  }

  /**
   * Reads what {@link #writeExternal} wrote.
   *
   * @param in the stream
   * @throws IOException if {@code in} fails
   */
  @Override
  public void readExternal(ObjectInput in) throws IOException {
    Scheme scheme = Scheme.values()[in.readUnsignedByte()];
    ColumnKind kind = ColumnKind.values()[in.readUnsignedByte()];
    spec = new FilterSpec(scheme, kind, in.readLong(), in.readDouble(), in.readLong());
    if (in.readBoolean()) {
      byte[] bytes = new byte[in.readInt()];
      in.readFully(bytes);
      filter = spec.read(bytes);
    } else {
      hashCount = in.readInt();
      hashes = new long[hashCount];
      for (int i = 0; i < hashCount; i++) {
        hashes[i] = in.readLong();
      }
    }
  }

  /** A byte sink of a known final size that hands out its array without a copy. */
  private static final class ExactBytes extends ByteArrayOutputStream {
    ExactBytes(long size) {
      super(Math.toIntExact(size));
    }

    byte[] bytes() {
      if (count != buf.length) {
        throw new IllegalStateException(
            count + " bytes written (expected: " + buf.length + ", the serialized size)");
      }
      return buf;
    }
  }
}
