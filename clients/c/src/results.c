/* Freeing what the library hands out. */
#include <stdlib.h>

#include "tollgate/client.h"
#include "tollgate/results.h"

void tollgate_is_subscriber_result_free(tollgate_is_subscriber_result *result) {
    free(result); /* one block, strings included */
}

static void free_entitlements(tollgate_entitlement_status *entitlements, size_t count) {
    if (!entitlements) return;
    for (size_t i = 0; i < count; i++) {
        free(entitlements[i].entitlement);
        free(entitlements[i].product_id);
        free(entitlements[i].store_subscription_id);
        free(entitlements[i].access_level);
    }
    free(entitlements);
}

static void free_strings(char **strings, size_t count) {
    if (!strings) return;
    for (size_t i = 0; i < count; i++) free(strings[i]);
    free(strings);
}

void tollgate_subscription_info_free(tollgate_subscription_info *info) {
    if (!info) return;
    if (info->subscriptions) {
        for (size_t i = 0; i < info->subscription_count; i++) {
            tollgate_subscription *subscription = &info->subscriptions[i];
            free(subscription->store_subscription_id);
            free(subscription->product_id);
            free(subscription->reason);
            free_strings(subscription->entitlements, subscription->entitlement_count);
            free_strings(subscription->replaces, subscription->replace_count);
        }
        free(info->subscriptions);
    }
    free_entitlements(info->entitlements, info->entitlement_count);
    free(info->user_id);
    free(info);
}

void tollgate_submission_free(tollgate_submission *submission) {
    if (!submission) return;
    free(submission->submission_id);
    free(submission->rejection_reason);
    free(submission->user_id);
    free_entitlements(submission->entitlements, submission->entitlement_count);
    free(submission);
}

void tollgate_health_report_free(tollgate_health_report *report) {
    if (!report) return;
    free(report->version);
    free(report);
}

void tollgate_is_subscriber_items_clear(tollgate_is_subscriber_item *items, size_t count) {
    if (!items) return;
    for (size_t i = 0; i < count; i++) {
        tollgate_is_subscriber_result_free(items[i].result);
        items[i].result = NULL;
    }
}

void tollgate_submission_items_clear(tollgate_submission_item *items, size_t count) {
    if (!items) return;
    for (size_t i = 0; i < count; i++) {
        tollgate_submission_free(items[i].submission);
        items[i].submission = NULL;
    }
}
