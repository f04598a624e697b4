package io.fabricpulse.streams.order;

import io.fabricpulse.avro.CounterRates;
import io.fabricpulse.avro.NodeRates;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serializer;

/**
 * Binary form of {@link BufferedRates} for the order buffer and its changelog: a version byte, the
 * headers (count, then key and value of each), then the record in the pipeline's own Avro wire
 * format (with its schema id, so a record buffered before an upgrade still reads after it).
 *
 * <p>Version 1 held one port's {@link CounterRates}; version 2 holds a whole {@link NodeRates} or a
 * CounterRates (the same layout; the schema id tells which). Both are read, so entries buffered
 * before an upgrade are released after it; a build that knows only version 1 refuses version 2 with
 * a clear error instead of misreading it.
 */
final class BufferedRatesSerde implements Serde<BufferedRates> {

  private static final byte VERSION = 2;
  private static final byte PORT_RECORDS = 1;
  private static final String TOPIC = "rates-order-buffer";

  private final Serializer<NodeRates> nodes;
  private final Serializer<CounterRates> ports;
  private final Deserializer<SpecificRecord> records;

  /**
   * @param records reads a NodeRates or a CounterRates, whichever it was written as
   */
  BufferedRatesSerde(
      Serde<NodeRates> nodes, Serde<CounterRates> ports, Deserializer<SpecificRecord> records) {
    this.nodes = nodes.serializer();
    this.ports = ports.serializer();
    this.records = records;
  }

  @Override
  public Serializer<BufferedRates> serializer() {
    return (topic, e) -> e == null ? null : write(e);
  }

  @Override
  public Deserializer<BufferedRates> deserializer() {
    return (topic, bytes) -> bytes == null ? null : read(bytes);
  }

  private byte[] write(BufferedRates e) {
    try {
      byte[] record =
          e.record() instanceof NodeRates node
              ? nodes.serialize(TOPIC, node)
              : ports.serialize(TOPIC, (CounterRates) e.record());
      ByteArrayOutputStream bytes = new ByteArrayOutputStream(record.length + 192);
      DataOutputStream out = new DataOutputStream(bytes);
      out.writeByte(VERSION);
      Header[] headers = e.headers().toArray();
      out.writeShort(headers.length);
      for (Header h : headers) {
        out.writeUTF(h.key());
        byte[] value = h.value();
        out.writeInt(value == null ? -1 : value.length);
        if (value != null) {
          out.write(value);
        }
      }
      out.writeInt(record.length);
      out.write(record);
      out.flush();
      return bytes.toByteArray();
    } catch (IOException ex) {
      throw new UncheckedIOException(ex);
    }
  }

  private BufferedRates read(byte[] data) {
    try {
      DataInputStream in = new DataInputStream(new ByteArrayInputStream(data));
      byte version = in.readByte();
      if (version != VERSION && version != PORT_RECORDS) {
        throw new IllegalStateException("unknown buffered rates version " + version);
      }
      RecordHeaders headers = new RecordHeaders();
      int count = in.readUnsignedShort();
      for (int i = 0; i < count; i++) {
        String key = in.readUTF();
        int length = in.readInt();
        byte[] value = null;
        if (length >= 0) {
          value = new byte[length];
          in.readFully(value);
        }
        headers.add(key, value);
      }
      byte[] record = new byte[in.readInt()];
      in.readFully(record);
      return new BufferedRates(records.deserialize(TOPIC, record), headers);
    } catch (IOException ex) {
      throw new UncheckedIOException(ex);
    }
  }
}
