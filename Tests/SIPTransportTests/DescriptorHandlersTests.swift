import Testing

@testable import SIPTransport

@Suite("Event loop: handlers by descriptor")
struct DescriptorHandlersTests {
    @Test func aHandlerIsFoundByItsDescriptorAndGoneOnceRemoved() {
        var handlers = DescriptorHandlers()
        var seen: [UInt32] = []
        #expect(handlers[7] == nil)
        handlers[7] = { seen.append($0) }
        handlers[3] = { seen.append($0 + 100) }
        handlers[7]?(1)
        handlers[3]?(2)
        #expect(seen == [1, 102])
        // Descriptors in between and beyond were never watched.
        #expect(handlers[5] == nil && handlers[8] == nil && handlers[1_000] == nil)
        handlers[7] = nil
        #expect(handlers[7] == nil && handlers[3] != nil)
        // A negative descriptor is never stored, and removing one never watched is harmless.
        handlers[-1] = { _ in }
        #expect(handlers[-1] == nil)
        handlers[9_999] = nil
        handlers.removeAll()
        #expect(handlers[3] == nil)
    }
}
