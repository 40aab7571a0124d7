import java.io.Serializable;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import javax.jms.BytesMessage;
import javax.jms.Connection;
import javax.jms.DeliveryMode;
import javax.jms.Destination;
import javax.jms.JMSException;
import javax.jms.MapMessage;
import javax.jms.Message;
import javax.jms.MessageConsumer;
import javax.jms.MessageProducer;
import javax.jms.ObjectMessage;
import javax.jms.Queue;
import javax.jms.Session;
import javax.jms.TextMessage;

import org.apache.activemq.ActiveMQConnectionFactory;

/**
 * A plain Java JMS client of ActiveMQ (OpenWire), as a Java application beside mqjms would
 * be: the interoperability tests (tests/interop) run it as a subprocess. One command per
 * run; every result is one JSON object on standard output.
 *
 * <pre>
 *   send URL QUEUE [text=T | bytes=HEX | map=NAME:TYPE:VALUE,... | object=TEXT | stream=TEXT]
 *        [prop=NAME:TYPE:VALUE]...
 *        [correlation=ID] [replyto=QUEUE] [type=T] [priority=N] [ttl=MS] [persistent=false]
 *   receive URL QUEUE TIMEOUT_MS [SELECTOR]
 *   request URL QUEUE REPLY_QUEUE TEXT TIMEOUT_MS      standard JMS requester: reply matched by
 *                                                      JMSCorrelationID = the request's JMSMessageID
 *   respond URL QUEUE TIMEOUT_MS                       standard JMS responder: the reply's
 *                                                      JMSCorrelationID = the request's JMSMessageID
 *   forward URL FROM TO PROPERTY VALUE TIMEOUT_MS      copy a message's properties, change one, send
 * </pre>
 */
public final class JmsClient {
    public static void main(String[] args) throws Exception {
        ActiveMQConnectionFactory factory = new ActiveMQConnectionFactory(args[1]);
        factory.setTrustAllPackages(true);
        Connection connection = factory.createConnection();
        connection.start();
        try {
            Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            switch (args[0]) {
                case "send": send(session, args); break;
                case "receive": receive(session, args); break;
                case "request": request(session, args); break;
                case "respond": respond(session, args); break;
                case "forward": forward(session, args); break;
                default: throw new IllegalArgumentException("unknown command " + args[0]);
            }
        } finally {
            connection.close();
        }
    }

    private static void send(Session session, String[] args) throws Exception {
        Message message = null;
        List<String[]> props = new ArrayList<>();
        Map<String, String> options = new HashMap<>();
        for (int i = 3; i < args.length; i++) {
            String arg = args[i];
            int eq = arg.indexOf('=');
            String key = arg.substring(0, eq), value = arg.substring(eq + 1);
            switch (key) {
                case "text": message = session.createTextMessage(value); break;
                case "bytes": {
                    BytesMessage bytes = session.createBytesMessage();
                    bytes.writeBytes(fromHex(value));
                    message = bytes;
                    break;
                }
                case "map": {
                    MapMessage map = session.createMapMessage();
                    for (String entry : value.split(",")) {
                        String[] parts = entry.split(":", 3);
                        map.setObject(parts[0], typed(parts[1], parts[2]));
                    }
                    message = map;
                    break;
                }
                case "stream": {
                    javax.jms.StreamMessage stream = session.createStreamMessage();
                    stream.writeString(value);
                    message = stream;
                    break;
                }
                case "object": {
                    HashMap<String, Serializable> object = new HashMap<>();
                    object.put("text", value);
                    message = session.createObjectMessage(object);
                    break;
                }
                case "prop": props.add(value.split(":", 3)); break;
                default: options.put(key, value);
            }
        }
        if (message == null) {
            message = session.createTextMessage("");
        }
        for (String[] prop : props) {
            message.setObjectProperty(prop[0], typed(prop[1], prop[2]));
        }
        if (options.containsKey("correlation")) {
            message.setJMSCorrelationID(options.get("correlation"));
        }
        if (options.containsKey("replyto")) {
            message.setJMSReplyTo(session.createQueue(options.get("replyto")));
        }
        if (options.containsKey("type")) {
            message.setJMSType(options.get("type"));
        }
        MessageProducer producer = session.createProducer(session.createQueue(args[2]));
        int mode = "false".equals(options.get("persistent"))
                ? DeliveryMode.NON_PERSISTENT : DeliveryMode.PERSISTENT;
        int priority = Integer.parseInt(options.getOrDefault("priority", "4"));
        long ttl = Long.parseLong(options.getOrDefault("ttl", "0"));
        producer.send(message, mode, priority, ttl);
        System.out.println(describe(message));
    }

    private static void receive(Session session, String[] args) throws Exception {
        Queue queue = session.createQueue(args[2]);
        MessageConsumer consumer = args.length > 4
                ? session.createConsumer(queue, args[4]) : session.createConsumer(queue);
        Message message = consumer.receive(Long.parseLong(args[3]));
        System.out.println(message == null ? "{\"none\": true}" : describe(message));
    }

    private static void request(Session session, String[] args) throws Exception {
        Queue replies = session.createQueue(args[3]);
        TextMessage request = session.createTextMessage(args[4]);
        request.setJMSReplyTo(replies);
        session.createProducer(session.createQueue(args[2])).send(request);
        String selector = "JMSCorrelationID = '" + request.getJMSMessageID() + "'";
        Message reply = session.createConsumer(replies, selector).receive(Long.parseLong(args[5]));
        Map<String, String> out = new LinkedHashMap<>();
        out.put("request_id", quote(request.getJMSMessageID()));
        out.put("reply", reply == null ? "null" : describe(reply));
        System.out.println(object(out));
    }

    private static void respond(Session session, String[] args) throws Exception {
        Message request = session.createConsumer(session.createQueue(args[2]))
                .receive(Long.parseLong(args[3]));
        if (request == null) {
            System.out.println("{\"none\": true}");
            return;
        }
        TextMessage reply = session.createTextMessage("re: " + ((TextMessage) request).getText());
        reply.setJMSCorrelationID(request.getJMSMessageID());
        session.createProducer(request.getJMSReplyTo()).send(reply);
        System.out.println(describe(request));
    }

    private static void forward(Session session, String[] args) throws Exception {
        Message in = session.createConsumer(session.createQueue(args[2]))
                .receive(Long.parseLong(args[6]));
        if (in == null) {
            System.out.println("{\"none\": true}");
            return;
        }
        TextMessage out = session.createTextMessage(((TextMessage) in).getText());
        for (Enumeration<?> names = in.getPropertyNames(); names.hasMoreElements();) {
            String name = (String) names.nextElement();
            out.setObjectProperty(name, in.getObjectProperty(name));
        }
        out.setStringProperty(args[4], args[5]);
        out.setJMSType(in.getJMSType());
        out.setJMSCorrelationID(in.getJMSCorrelationID());
        session.createProducer(session.createQueue(args[3])).send(out);
        System.out.println(describe(out));
    }

    // ------------------------------------------------------------------ values

    private static Object typed(String type, String value) {
        switch (type) {
            case "string": return value;
            case "int": return Integer.valueOf(value);
            case "long": return Long.valueOf(value);
            case "short": return Short.valueOf(value);
            case "byte": return Byte.valueOf(value);
            case "boolean": return Boolean.valueOf(value);
            case "double": return Double.valueOf(value);
            case "float": return Float.valueOf(value);
            default: throw new IllegalArgumentException("unknown type " + type);
        }
    }

    private static byte[] fromHex(String hex) {
        byte[] out = new byte[hex.length() / 2];
        for (int i = 0; i < out.length; i++) {
            out[i] = (byte) Integer.parseInt(hex.substring(2 * i, 2 * i + 2), 16);
        }
        return out;
    }

    private static String hex(byte[] bytes) {
        StringBuilder out = new StringBuilder();
        for (byte b : bytes) {
            out.append(String.format("%02x", b));
        }
        return out.toString();
    }

    /** A message as JSON: its class, body, properties (with their Java types) and headers. */
    private static String describe(Message message) throws JMSException {
        Map<String, String> out = new LinkedHashMap<>();
        String kind = message instanceof TextMessage ? "TextMessage"
                : message instanceof BytesMessage ? "BytesMessage"
                : message instanceof MapMessage ? "MapMessage"
                : message instanceof ObjectMessage ? "ObjectMessage" : "Message";
        out.put("class", quote(kind));
        try {
            if (message instanceof TextMessage) {
                out.put("text", quote(((TextMessage) message).getText()));
            } else if (message instanceof BytesMessage) {
                BytesMessage bytes = (BytesMessage) message;
                bytes.reset();
                byte[] body = new byte[(int) bytes.getBodyLength()];
                bytes.readBytes(body);
                out.put("bytes", quote(hex(body)));
            } else if (message instanceof MapMessage) {
                MapMessage map = (MapMessage) message;
                Map<String, String> entries = new LinkedHashMap<>();
                for (Enumeration<?> names = map.getMapNames(); names.hasMoreElements();) {
                    String name = (String) names.nextElement();
                    entries.put(name, typedValue(map.getObject(name)));
                }
                out.put("map", object(entries));
            }
        } catch (JMSException | RuntimeException e) {
            out.put("body_error", quote(e.toString()));
        }
        Map<String, String> props = new LinkedHashMap<>();
        for (Enumeration<?> names = message.getPropertyNames(); names.hasMoreElements();) {
            String name = (String) names.nextElement();
            props.put(name, typedValue(message.getObjectProperty(name)));
        }
        out.put("properties", object(props));
        out.put("JMSMessageID", quote(message.getJMSMessageID()));
        out.put("JMSCorrelationID", quote(message.getJMSCorrelationID()));
        out.put("JMSType", quote(message.getJMSType()));
        out.put("JMSPriority", String.valueOf(message.getJMSPriority()));
        out.put("JMSDeliveryMode", String.valueOf(message.getJMSDeliveryMode()));
        out.put("JMSExpiration", String.valueOf(message.getJMSExpiration()));
        Destination replyTo = message.getJMSReplyTo();
        out.put("JMSReplyTo", replyTo instanceof Queue ? quote(((Queue) replyTo).getQueueName()) : "null");
        return object(out);
    }

    private static String typedValue(Object value) {
        if (value == null) {
            return "null";
        }
        String text = value instanceof byte[] ? hex((byte[]) value) : value.toString();
        return "[" + quote(value.getClass().getSimpleName()) + ", " + quote(text) + "]";
    }

    private static String object(Map<String, String> fields) {
        StringBuilder out = new StringBuilder("{");
        for (Map.Entry<String, String> field : fields.entrySet()) {
            if (out.length() > 1) {
                out.append(", ");
            }
            out.append(quote(field.getKey())).append(": ").append(field.getValue());
        }
        return out.append('}').toString();
    }

    private static String quote(String text) {
        if (text == null) {
            return "null";
        }
        StringBuilder out = new StringBuilder("\"");
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '"' || c == '\\') {
                out.append('\\').append(c);
            } else if (c < 0x20 || c > 0x7e) {
                out.append(String.format("\\u%04x", (int) c));
            } else {
                out.append(c);
            }
        }
        return out.append('"').toString();
    }
}
