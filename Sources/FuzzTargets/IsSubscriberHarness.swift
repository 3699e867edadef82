import NIOCore
import SwiftProtobuf
import TollgateContract
import TollgateWire

// `scanIsSubscriberRun` is the server's own scan, internal to its module; debug builds (the
// tests' and the fuzz build's) are compiled for testing.
@testable import TollgateServer

/// Input: one byte choosing the payload limit, then the bytes of one read on a connection.
///
/// - The whole input after that byte, read as an `IsSubscriberRequest` by the hand-written
///   parser: whatever it accepts, swift-protobuf (the message path) must accept with the same two
///   strings, or the fast path would answer another question than the slow one.
/// - The server's scan of the read: each frame it takes must be the frame `RequestFrameDecoder`
///   yields at the same place, an IsSubscriber call within the limit, with the same fields.
enum IsSubscriberHarness {
  static func run(_ bytes: [UInt8]) {
    guard let first = bytes.first else { return }
    let maximumPayloadLength = Int(first) * 4
    let stream = Array(bytes.dropFirst())
    stream.withUnsafeBytes { raw in
      checkAgainstSwiftProtobuf(raw)
      checkScan(raw, maximumPayloadLength: maximumPayloadLength)
    }
  }

  private static func checkAgainstSwiftProtobuf(_ payload: UnsafeRawBufferPointer) {
    guard let fields = IsSubscriberFields(parsing: payload) else { return }
    let message: Tollgate_V1_IsSubscriberRequest
    do {
      message = try Tollgate_V1_IsSubscriberRequest(serializedBytes: Array(payload))
    } catch {
      preconditionFailure("IsSubscriberFields accepts a payload swift-protobuf refuses: \(error)")
    }
    precondition(String(decoding: fields.userId, as: UTF8.self) == message.userID, "user ids differ")
    precondition(String(decoding: fields.entitlement, as: UTF8.self) == message.entitlement, "entitlements differ")
  }

  private static func checkScan(_ bytes: UnsafeRawBufferPointer, maximumPayloadLength: Int) {
    let limit = EntitlementsDispatcher.batchLimit
    withUnsafeTemporaryAllocation(of: IsSubscriberFields.self, capacity: limit) { requests in
      withUnsafeTemporaryAllocation(of: UInt32.self, capacity: limit) { requestIds in
        withUnsafeTemporaryAllocation(of: Range<Int>.self, capacity: limit) { payloads in
          let (count, consumed) = EntitlementsDispatcher.scanIsSubscriberRun(
            in: bytes, maximumPayloadLength: maximumPayloadLength, requests: requests, requestIds: requestIds,
            payloads: payloads)
          precondition(count >= 0 && count <= limit && consumed >= 0 && consumed <= bytes.count)

          var buffer = ByteBuffer(bytes: bytes)
          var decoder = RequestFrameDecoder(maximumPayloadLength: maximumPayloadLength)
          for index in 0..<count {
            let start = buffer.readerIndex
            guard case .request(let frame) = decoder.decodeFrame(buffer: &buffer) else {
              preconditionFailure("the scan took a frame the decoder does not yield")
            }
            precondition(frame.methodIndex == EntitlementsMethod.isSubscriber.rawValue)
            precondition(frame.requestId == requestIds[index])
            precondition(payloads[index] == start + RequestFrame.headerLength..<buffer.readerIndex)
            let scanned = requests[index]
            precondition(scanned.userId.count + scanned.entitlement.count <= payloads[index].count)
            let decoded = IsSubscriberQuery(decoding: frame.payload)
            precondition(decoded?.userId == String(decoding: scanned.userId, as: UTF8.self))
            precondition(decoded?.entitlement == String(decoding: scanned.entitlement, as: UTF8.self))
          }
          precondition(buffer.readerIndex == consumed, "the scan and the decoder disagree on the frames' lengths")
          requests.baseAddress?.deinitialize(count: count)
          requestIds.baseAddress?.deinitialize(count: count)
          payloads.baseAddress?.deinitialize(count: count)
        }
      }
    }
  }
}
