/**
 * Cuckoo filters: approximate set membership with deletion, in a few bits per item.
 *
 * <p>The only exported package is {@code dev.cuckoo}; start with {@link dev.cuckoo.CuckooFilter}.
 */
module dev.cuckoo {
  requires com.dynatrace.hash4j;
  requires org.apache.commons.codec;

  exports dev.cuckoo;
}
