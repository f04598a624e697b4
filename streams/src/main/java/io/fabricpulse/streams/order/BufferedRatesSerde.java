package io.fabricpulse.streams.order;

import io.fabricpulse.avro.CounterRates;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serializer;

/**
 * Binary form of {@link BufferedRates} for the order buffer and its changelog: a version byte, the
 * headers (count, then key and value of each), then the record in the pipeline's own Avro wire
 * format (with its schema id, so a record buffered before an upgrade still reads after it).
 */
final class BufferedRatesSerde implements Serde<BufferedRates> {

  private static final byte VERSION = 1;
  private static final String TOPIC = "rates-order-buffer";

  private final Serde<CounterRates> records;

  BufferedRatesSerde(Serde<CounterRates> records) {
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
      byte[] record = records.serializer().serialize(TOPIC, e.record());
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
      if (version != VERSION) {
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
      return new BufferedRates(records.deserializer().deserialize(TOPIC, record), headers);
    } catch (IOException ex) {
      throw new UncheckedIOException(ex);
    }
  }
}
