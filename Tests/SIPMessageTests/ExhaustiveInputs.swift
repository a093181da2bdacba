/// Hands `body` every string of at most `length` bytes over `alphabet`, depth first, the empty one first: the
/// inputs a fast path is compared on against the general reader.
func forEachString(over alphabet: [UInt8], upTo length: Int, _ body: ([UInt8]) -> Void) {
    var text: [UInt8] = []
    func visit() {
        body(text)
        guard text.count < length else { return }
        for byte in alphabet {
            text.append(byte)
            visit()
            text.removeLast()
        }
    }
    visit()
}
