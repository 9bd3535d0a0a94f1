import Foundation
import OAuthFlowFiles

/// Line and column arithmetic over raw bytes, for files that are not valid text.
enum TextPosition {
    static func of(byteOffset: Int, in bytes: some Collection<UInt8>) -> (line: Int, column: Int) {
        var line = 1
        var column = 1
        for byte in bytes.prefix(byteOffset) {
            if byte == UInt8(ascii: "\n") {
                line += 1
                column = 1
            } else if byte & 0xC0 != 0x80 {
                column += 1
            }
        }
        return (line, column)
    }

    static func firstInvalidUTF8Offset(in data: some Collection<UInt8>) -> Int {
        var offset = 0
        var iterator = data.makeIterator()
        var decoder = UTF8()
        var consumed = 0
        while true {
            switch decoder.decode(&iterator) {
            case let .scalarValue(scalar):
                offset = consumed
                consumed += UTF8.width(scalar)
            case .emptyInput:
                return consumed
            case .error:
                return consumed == 0 ? 0 : max(offset, consumed)
            }
        }
    }
}
