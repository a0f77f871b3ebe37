-- Argo CD health of a berth.dev resource (App, Project, Grid, ServerOrder), read from its
-- kstatus conditions. Argo CD runs custom health checks without Lua's string library, so this
-- script uses only the base and table libraries.

local function findCondition(conditions, conditionType)
  if conditions == nil then
    return nil
  end
  for _, condition in ipairs(conditions) do
    if condition.type == conditionType then
      return condition
    end
  end
  return nil
end

-- A condition written for an older generation says nothing about the current spec.
local function isCurrent(condition, generation)
  return condition.observedGeneration == nil or generation == nil or condition.observedGeneration >= generation
end

local function isTrue(condition, generation)
  return condition ~= nil and condition.status == "True" and isCurrent(condition, generation)
end

local function describe(condition, fallback)
  if condition ~= nil and condition.message ~= nil and condition.message ~= "" then
    return condition.message
  end
  if condition ~= nil and condition.reason ~= nil then
    return condition.reason
  end
  return fallback
end

if obj.spec ~= nil and obj.spec.suspend == true then
  return { status = "Suspended", message = "Reconciliation is suspended (spec.suspend is true)" }
end

local status = obj.status
if status == nil then
  return { status = "Progressing", message = "Waiting for berth to reconcile" }
end

local generation = nil
if obj.metadata ~= nil then
  generation = obj.metadata.generation
end
if generation ~= nil and status.observedGeneration ~= nil and status.observedGeneration < generation then
  return { status = "Progressing", message = "Waiting for berth to observe generation " .. generation }
end

local stalled = findCondition(status.conditions, "Stalled")
if isTrue(stalled, generation) then
  return { status = "Degraded", message = describe(stalled, "Stalled") }
end

local ready = findCondition(status.conditions, "Ready")

-- berth was told to leave it alone: a pause (the Namespace's berth.dev/paused, the operator's
-- --paused) or managementPolicies without the change it would make. Nothing is wrong and nothing
-- is in flight (kstatus reads it Current), as a suspended resource.
if ready ~= nil and isCurrent(ready, generation) then
  if ready.reason == "Paused" or (ready.status == "False" and (ready.reason == "DriftNotReverted" or ready.reason == "DeleteHeld")) then
    return { status = "Suspended", message = describe(ready, ready.reason) }
  end
  -- Observe-only, and the object isn't there: berth reports it and creates nothing.
  if ready.status == "False" and ready.reason == "ExternalNotFound" then
    return { status = "Missing", message = describe(ready, "ExternalNotFound") }
  end
end

if isTrue(ready, generation) then
  return { status = "Healthy", message = describe(ready, "Ready") }
end

-- A ServerOrder's dry run waits for a person to set spec.approved: nothing is wrong and nothing is
-- in flight, as a paused rollout waiting for promotion.
if ready ~= nil and ready.status == "False" and ready.reason == "AwaitingApproval" and isCurrent(ready, generation) then
  return { status = "Suspended", message = describe(ready, "Waiting for spec.approved") }
end

local reconciling = findCondition(status.conditions, "Reconciling")
if isTrue(reconciling, generation) then
  return { status = "Progressing", message = describe(reconciling, "Reconciling") }
end
return { status = "Progressing", message = describe(ready, "Waiting for the Ready condition") }
