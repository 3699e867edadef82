// Command tollgate-grpc-check calls Tollgate's gRPC door with the stock grpc-go client (Debian's
// golang-google-grpc-dev) and stubs protoc-gen-go / protoc-gen-go-grpc generated from
// proto/tollgate.proto into the package tollgatev1, import path tollgate/v1
// (clients/stock/tests/test_grpc_go.py builds it in GOPATH mode). It prints one JSON object:
// each user's IsSubscriber and GetSubscription answer (proto field names, enums as numbers,
// defaults included), Health, the standard health check, a SubmitPurchase, and the status codes
// of the calls that must be refused.
//
// Usage: TOLLGATE_READ_KEY=… TOLLGATE_SUBMIT_KEY=… tollgate-grpc-check -addr 127.0.0.1:7705 USER…
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	tollgatev1 "tollgate/v1"
)

var marshal = protojson.MarshalOptions{UseProtoNames: true, EmitUnpopulated: true, UseEnumNumbers: true}

// asJSON is a message as proto3's JSON mapping writes it.
func asJSON(message proto.Message) json.RawMessage {
	bytes, err := marshal.Marshal(message)
	if err != nil {
		fail(err)
	}
	return bytes
}

// code is the status code a call failed with ("OK" when it did not).
func code(err error) string {
	return status.Code(err).String()
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "tollgate-grpc-check:", err)
	os.Exit(1)
}

// as is a context whose calls carry `authorization: Bearer key` (none for "").
func as(key string) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	if key != "" {
		ctx = metadata.AppendToOutgoingContext(ctx, "authorization", "Bearer "+key)
	}
	return ctx, cancel
}

func main() {
	addr := flag.String("addr", "127.0.0.1:7705", "the gRPC door's HOST:PORT")
	entitlement := flag.String("entitlement", "premium", "the entitlement IsSubscriber asks about")
	flag.Parse()
	readKey, submitKey := os.Getenv("TOLLGATE_READ_KEY"), os.Getenv("TOLLGATE_SUBMIT_KEY")

	conn, err := grpc.Dial(*addr, grpc.WithInsecure(), grpc.WithBlock(), grpc.WithTimeout(5*time.Second))
	if err != nil {
		fail(err)
	}
	defer conn.Close()
	client := tollgatev1.NewEntitlementsClient(conn)
	out := map[string]interface{}{}

	var reads, subscriptions []json.RawMessage
	for _, user := range flag.Args() {
		ctx, cancel := as(readKey)
		read, err := client.IsSubscriber(ctx, &tollgatev1.IsSubscriberRequest{UserId: user, Entitlement: *entitlement})
		if err != nil {
			fail(err)
		}
		subscription, err := client.GetSubscription(ctx, &tollgatev1.GetSubscriptionRequest{UserId: user})
		cancel()
		if err != nil {
			fail(err)
		}
		reads, subscriptions = append(reads, asJSON(read)), append(subscriptions, asJSON(subscription))
	}
	out["is_subscriber"], out["get_subscription"] = reads, subscriptions

	ctx, cancel := as(readKey)
	defer cancel()
	health, err := client.Health(ctx, &tollgatev1.HealthRequest{})
	if err != nil {
		fail(err)
	}
	out["health"] = asJSON(health)

	probe, cancelProbe := as("") // the standard health service needs no key
	defer cancelProbe()
	checked, err := grpc_health_v1.NewHealthClient(conn).Check(probe, &grpc_health_v1.HealthCheckRequest{})
	if err != nil {
		fail(err)
	}
	out["grpc_health"] = checked.Status.String()

	submitCtx, cancelSubmit := as(submitKey)
	defer cancelSubmit()
	purchase := &tollgatev1.SubmitPurchaseRequest{UserId: "buyer-go", Store: tollgatev1.Store_STORE_APP_STORE, Receipt: "2000000000993"}
	submitted, err := client.SubmitPurchase(submitCtx, purchase)
	if err != nil {
		fail(err)
	}
	out["submit_purchase"] = asJSON(submitted)

	request := &tollgatev1.IsSubscriberRequest{UserId: "user-1", Entitlement: *entitlement}
	noKey, cancelNoKey := as("")
	defer cancelNoKey()
	_, err = client.IsSubscriber(noKey, request)
	out["no_key"] = code(err)
	wrongKey, cancelWrong := as("not-a-key")
	defer cancelWrong()
	_, err = client.IsSubscriber(wrongKey, request)
	out["wrong_key"] = code(err)
	_, err = client.SubmitPurchase(ctx, purchase)
	out["read_key_submit"] = code(err)
	_, err = client.Grant(ctx, &tollgatev1.GrantRequest{UserId: "user-1", Entitlement: *entitlement, Until: "2099-01-01T00:00:00Z"})
	out["read_key_grant"] = code(err)

	if err := json.NewEncoder(os.Stdout).Encode(out); err != nil {
		fail(err)
	}
}
