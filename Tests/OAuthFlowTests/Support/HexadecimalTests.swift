import Foundation
import Testing

import OAuthFlow

/// Lowercase hexadecimal, as the stored digests (the Postgres store's keys, the pending cookie's name) have always been
/// written: every byte value gives the two digits `%02x` gives.
@Suite struct HexadecimalTests {
    @Test func everyByteIsTwoLowercaseDigits() {
        let all = (0...255).map(UInt8.init)
        #expect(Hexadecimal.lowercase(all) == all.map { String(format: "%02x", $0) }.joined())
        #expect(Hexadecimal.lowercase([UInt8]()) == "")
    }
}
