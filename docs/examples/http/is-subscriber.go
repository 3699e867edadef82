// IsSubscriber over the HTTP/JSON API with Go's standard library (docs/http-api.md).
// Usage: TOLLGATE_HTTP=http://127.0.0.1:7706 TOLLGATE_KEY=tgk_... go run is-subscriber.go USER_ID ENTITLEMENT
package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"time"
)

// The proto3 JSON of IsSubscriberResponse: fields at their default are left out, int64 values
// are strings.
type isSubscriberResponse struct {
	Active      bool   `json:"active"`
	ExpiresAtMs string `json:"expiresAtMs"`
	State       string `json:"state"`
	ProductID   string `json:"productId"`
}

type problem struct {
	Status int    `json:"status"`
	Code   string `json:"code"`
	Detail string `json:"detail"`
}

func main() {
	base := os.Getenv("TOLLGATE_HTTP")
	if base == "" {
		base = "http://127.0.0.1:7706"
	}
	target := base + "/v1/users/" + url.PathEscape(os.Args[1]) + "/entitlements/" + url.PathEscape(os.Args[2])
	request, err := http.NewRequest(http.MethodGet, target, nil)
	if err != nil {
		panic(err)
	}
	request.Header.Set("Authorization", "Bearer "+os.Getenv("TOLLGATE_KEY"))
	client := &http.Client{Timeout: 5 * time.Second}
	response, err := client.Do(request)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer response.Body.Close()
	body, _ := io.ReadAll(response.Body)
	if response.StatusCode != http.StatusOK {
		var p problem
		_ = json.Unmarshal(body, &p)
		fmt.Fprintf(os.Stderr, "%d %s: %s\n", p.Status, p.Code, p.Detail)
		os.Exit(1)
	}
	var answer isSubscriberResponse
	if err := json.Unmarshal(body, &answer); err != nil {
		panic(err)
	}
	expires, _ := strconv.ParseInt(answer.ExpiresAtMs, 10, 64)
	fmt.Fprintf(os.Stderr, "active=%v expiresAtMs=%d\n", answer.Active, expires)
	fmt.Println(string(body))
}
