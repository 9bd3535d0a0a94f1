import Crypto
import CryptoExtras
import Foundation

/// The parts of an X.509 certificate (RFC 5280 §4.1) a simulated provider reads to authenticate a mutual-TLS client
/// (RFC 8705 §2): the subject's distinguished name, its subject alternative names and its public key; and the DER
/// writing behind `TLSClientIdentity.simulated(commonName:organization:dnsNames:uris:emails:)`.
struct CertificateDER: Sendable {
    /// The subject as an RFC 4514 string, most specific first (`CN=client,O=Bank`).
    let subjectDN: String
    /// The subject alternative names (RFC 5280 §4.2.1.6): `dNSName`, `uniformResourceIdentifier`, `rfc822Name`.
    let dnsNames: [String]
    let uris: [String]
    let emails: [String]
    /// `iPAddress` names, 4 or 16 bytes each.
    let ipAddresses: [Data]
    /// The DER of the certificate's SubjectPublicKeyInfo.
    let publicKeyInfo: Data

    /// Reads the first certificate of a PEM chain; nil when there is none or it is not a certificate.
    init?(pem: String) {
        guard let der = Self.firstBlock("CERTIFICATE", in: pem) else { return nil }
        self.init(der: der)
    }

    /// Reads a DER certificate; nil when it is not one.
    init?(der: Data) {
        guard let certificate = Self.elements(der)?.first, certificate.tag == Tag.sequence,
            let tbs = Self.elements(certificate.content)?.first, tbs.tag == Tag.sequence,
            let fields = Self.elements(tbs.content)
        else { return nil }
        // TBSCertificate: [0] version (optional), serialNumber, signature, issuer, validity, subject, subjectPublicKeyInfo, ...
        let first = fields.first?.tag == 0xA0 ? 1 : 0
        guard fields.count > first + 5 else { return nil }
        let subject = fields[first + 4]
        let key = fields[first + 5]
        guard subject.tag == Tag.sequence, key.tag == Tag.sequence, let name = Self.distinguishedName(subject.content) else { return nil }
        subjectDN = name
        publicKeyInfo = key.whole
        var dns: [String] = []
        var uris: [String] = []
        var emails: [String] = []
        var addresses: [Data] = []
        for names in Self.alternativeNames(fields.dropFirst(first + 6)) {
            let text = String(decoding: names.content, as: UTF8.self)
            switch names.tag {
            case 0x81: emails.append(text)
            case 0x82: dns.append(text)
            case 0x86: uris.append(text)
            case 0x87: addresses.append(names.content)
            default: continue
            }
        }
        (dnsNames, self.uris, self.emails, ipAddresses) = (dns, uris, emails, addresses)
    }

    // MARK: - Reading

    enum Tag {
        static let integer: UInt8 = 0x02
        static let bitString: UInt8 = 0x03
        static let octetString: UInt8 = 0x04
        static let oid: UInt8 = 0x06
        static let utf8String: UInt8 = 0x0C
        static let utcTime: UInt8 = 0x17
        static let sequence: UInt8 = 0x30
        static let set: UInt8 = 0x31
    }

    /// One DER element: its tag, its content, and the whole of it (tag and length included).
    struct Element {
        let tag: UInt8
        let content: Data
        let whole: Data
    }

    /// The elements that follow one another in `data`; nil when it is not DER.
    static func elements(_ data: Data) -> [Element]? {
        let bytes = [UInt8](data)
        var index = 0
        var found: [Element] = []
        while index < bytes.count {
            let start = index
            guard index + 1 < bytes.count else { return nil }
            let tag = bytes[index]
            var length = Int(bytes[index + 1])
            index += 2
            if length & 0x80 != 0 {
                let octets = length & 0x7F
                guard (1...4).contains(octets), index + octets <= bytes.count else { return nil }
                length = bytes[index..<index + octets].reduce(0) { $0 << 8 | Int($1) }
                index += octets
            }
            guard length <= bytes.count - index else { return nil }
            found.append(Element(tag: tag, content: Data(bytes[index..<index + length]), whole: Data(bytes[start..<index + length])))
            index += length
        }
        return found
    }

    /// An object identifier's dotted form.
    static func dotted(_ oid: Data) -> String {
        let bytes = [UInt8](oid)
        guard let first = bytes.first else { return "" }
        var arcs = [Int(first) / 40, Int(first) % 40]
        var value = 0
        for byte in bytes.dropFirst() {
            value = value << 7 | Int(byte & 0x7F)
            if byte & 0x80 == 0 {
                arcs.append(value)
                value = 0
            }
        }
        return arcs.map(String.init).joined(separator: ".")
    }

    /// The short names RFC 4514 §3 gives attribute types, by object identifier; others are written dotted.
    static let attributeNames: [String: String] = [
        "2.5.4.3": "CN", "2.5.4.7": "L", "2.5.4.8": "ST", "2.5.4.10": "O", "2.5.4.11": "OU", "2.5.4.6": "C", "2.5.4.9": "STREET",
        "0.9.2342.19200300.100.1.25": "DC", "0.9.2342.19200300.100.1.1": "UID",
    ]

    /// A Name's RFC 4514 string: its relative distinguished names last to first, joined with `,`, and the attributes of
    /// one joined with `+`.
    static func distinguishedName(_ name: Data) -> String? {
        guard let relative = elements(name) else { return nil }
        var parts: [String] = []
        for set in relative.reversed() {
            guard set.tag == Tag.set, let attributes = elements(set.content) else { return nil }
            var values: [String] = []
            for attribute in attributes {
                guard let pair = elements(attribute.content), pair.count == 2, pair[0].tag == Tag.oid else { return nil }
                let type = dotted(pair[0].content)
                let value: String
                // UTF8String, PrintableString, TeletexString, IA5String: text; anything else as `#` and its DER in hex.
                if [0x0C, 0x13, 0x14, 0x16].contains(pair[1].tag) {
                    value = escaped(String(decoding: pair[1].content, as: UTF8.self))
                } else {
                    value = "#" + pair[1].whole.map { String($0, radix: 16).leftPadded(to: 2) }.joined()
                }
                values.append("\(attributeNames[type] ?? type)=\(value)")
            }
            parts.append(values.joined(separator: "+"))
        }
        return parts.joined(separator: ",")
    }

    /// An attribute value escaped as RFC 4514 §2.4 asks.
    static func escaped(_ value: String) -> String {
        var out = ""
        for (offset, character) in value.enumerated() {
            let special = ",+\"\\<>;".contains(character)
            let edge = (offset == 0 && (character == " " || character == "#")) || (offset == value.count - 1 && character == " ")
            if special || edge { out.append("\\") }
            out.append(character)
        }
        return out
    }

    /// The GeneralName elements of the subjectAltName extension (2.5.29.17) among the fields after the public key.
    static func alternativeNames(_ fields: ArraySlice<Element>) -> [Element] {
        guard let wrapper = fields.first(where: { $0.tag == 0xA3 }), let list = elements(wrapper.content)?.first,
            let extensions = elements(list.content)
        else { return [] }
        for entry in extensions {
            guard let parts = elements(entry.content), parts.first?.tag == Tag.oid, let first = parts.first,
                dotted(first.content) == "2.5.29.17", let value = parts.last, value.tag == Tag.octetString,
                let sequence = elements(value.content)?.first, let names = elements(sequence.content)
            else { continue }
            return names
        }
        return []
    }

    /// The DER of the first PEM block labelled `label`.
    static func firstBlock(_ label: String, in pem: String) -> Data? {
        guard let start = pem.range(of: "-----BEGIN \(label)-----"),
            let end = pem.range(of: "-----END \(label)-----", range: start.upperBound..<pem.endIndex)
        else { return nil }
        return Data(base64Encoded: String(pem[start.upperBound..<end.lowerBound].filter { !$0.isWhitespace }))
    }

    /// The SubjectPublicKeyInfo DER of a PEM private key (P-256, P-384, P-521 or RSA); nil for another kind.
    static func publicKeyInfo(ofPrivateKeyPEM pem: String) -> Data? {
        if let key = try? P256.Signing.PrivateKey(pemRepresentation: pem) { return key.publicKey.derRepresentation }
        if let key = try? P384.Signing.PrivateKey(pemRepresentation: pem) { return key.publicKey.derRepresentation }
        if let key = try? P521.Signing.PrivateKey(pemRepresentation: pem) { return key.publicKey.derRepresentation }
        if let key = try? _RSA.Signing.PrivateKey(pemRepresentation: pem) { return key.publicKey.derRepresentation }
        return nil
    }

    // MARK: - Writing

    /// One DER element.
    static func element(_ tag: UInt8, _ content: Data) -> Data {
        var length = Data()
        if content.count < 0x80 {
            length.append(UInt8(content.count))
        } else {
            var count = content.count
            var octets: [UInt8] = []
            while count > 0 {
                octets.insert(UInt8(count & 0xFF), at: 0)
                count >>= 8
            }
            length.append(0x80 | UInt8(octets.count))
            length.append(contentsOf: octets)
        }
        return Data([tag]) + length + content
    }

    static func sequence(_ parts: Data...) -> Data { element(Tag.sequence, parts.reduce(Data(), +)) }

    /// An object identifier from its dotted form.
    static func oid(_ dotted: String) -> Data {
        let arcs = dotted.split(separator: ".").compactMap { Int($0) }
        guard arcs.count >= 2 else { return element(Tag.oid, Data()) }
        var bytes: [UInt8] = [UInt8(arcs[0] * 40 + arcs[1])]
        for arc in arcs.dropFirst(2) {
            var groups: [UInt8] = [UInt8(arc & 0x7F)]
            var rest = arc >> 7
            while rest > 0 {
                groups.insert(UInt8(rest & 0x7F) | 0x80, at: 0)
                rest >>= 7
            }
            bytes += groups
        }
        return element(Tag.oid, Data(bytes))
    }

    /// A Name of one attribute per relative distinguished name, most general first, values as UTF8String.
    static func name(_ attributes: [(type: String, value: String)]) -> Data {
        element(
            Tag.sequence,
            attributes.map { element(Tag.set, sequence(oid($0.type), element(Tag.utf8String, Data($0.value.utf8)))) }.reduce(Data(), +))
    }

    /// A UTCTime (RFC 5280 §4.1.2.5.1): `YYMMDDHHMMSSZ`.
    static func utcTime(_ date: Date) -> Data {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyMMddHHmmss'Z'"
        return element(Tag.utcTime, Data(formatter.string(from: date).utf8))
    }

    /// A self-signed certificate (ECDSA P-256 with SHA-256) for `key`, valid from a day before `now` for a year.
    static func selfSigned(
        key: P256.Signing.PrivateKey, subject: [(type: String, value: String)], dnsNames: [String], uris: [String], emails: [String],
        now: Date
    ) throws -> Data {
        let algorithm = sequence(oid("1.2.840.10045.4.3.2"))
        var serial = (0..<16).map { _ in UInt8.random(in: 0...255) }
        serial[0] &= 0x7F
        let subjectName = name(subject)
        var tbs = element(0xA0, element(Tag.integer, Data([2]))) + element(Tag.integer, Data(serial)) + algorithm + subjectName
        tbs += sequence(utcTime(now.addingTimeInterval(-86_400)), utcTime(now.addingTimeInterval(365 * 86_400)))
        tbs += subjectName + key.publicKey.derRepresentation
        let general =
            emails.map { element(0x81, Data($0.utf8)) } + dnsNames.map { element(0x82, Data($0.utf8)) } + uris.map { element(0x86, Data($0.utf8)) }
        if !general.isEmpty {
            let alternative = sequence(oid("2.5.29.17"), element(Tag.octetString, element(Tag.sequence, general.reduce(Data(), +))))
            tbs += element(0xA3, sequence(alternative))
        }
        let signed = element(Tag.sequence, tbs)
        let signature = try key.signature(for: signed).derRepresentation
        return sequence(signed, algorithm, element(Tag.bitString, Data([0]) + signature))
    }
}

extension String {
    /// The string with zeros in front, to `width` characters.
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
