/**
 * Core's data types are derived from its schemas (`FromSchema`). These are the
 * shapes they had when they were written by hand: a derived type must equal
 * them exactly, so every package that uses them type-checks unchanged. Type
 * level only (checked by `tsc`, the typecheck task).
 */
import { describe, expectTypeOf, it } from 'vitest';
import type { ModuleManifest } from './loader/manifest.js';
import type {
  ChatRequest,
  ChatResponse,
  ContentBlock,
  ContentBlockType,
  Degradation,
  ImageBlock,
  InvalidToolArguments,
  JSONSchema,
  Message,
  MessageToolCall,
  ReasoningBlock,
  RedactedThinkingBlock,
  ResponseFormat,
  Role,
  TextBlock,
  ThinkingBlock,
  ToolCall,
  ToolCallBlock,
  ToolChoice,
  ToolResultBlock,
  ToolSpec,
  Usage,
  Visibility,
} from './messages.js';
import type { ModuleAlias, ModuleType } from './module-types.js';
import type { ModuleSpec, MountPlan, SessionSection } from './mount-plan.js';
import type {
  FullHookResult,
  HookAction,
  HookResult,
  InjectionRole,
  MessageLevel,
  ToolResult,
} from './results.js';

namespace Was {
  export type Visibility = 'internal' | 'developer' | 'user';
  export interface TextBlock {
    type: 'text';
    text: string;
    visibility?: Visibility;
  }
  export interface ThinkingBlock {
    type: 'thinking';
    thinking: string;
    signature?: string;
    content?: unknown[];
    visibility?: Visibility;
  }
  export interface RedactedThinkingBlock {
    type: 'redacted_thinking';
    data: string;
    visibility?: Visibility;
  }
  export interface ToolCallBlock {
    type: 'tool_call';
    id: string;
    name: string;
    input: Record<string, unknown>;
    visibility?: Visibility;
  }
  export interface ToolResultBlock {
    type: 'tool_result';
    tool_call_id: string;
    output: unknown;
    visibility?: Visibility;
  }
  export type ImageSource =
    | { type: 'base64'; media_type: string; data: string }
    | { type: 'url'; url: string }
    | { type: string; [key: string]: unknown };
  export interface ImageBlock {
    type: 'image';
    source: ImageSource;
    visibility?: Visibility;
  }
  export interface ReasoningBlock {
    type: 'reasoning';
    content: unknown[];
    summary: unknown[];
    visibility?: Visibility;
  }
  export type ContentBlock =
    | TextBlock
    | ThinkingBlock
    | RedactedThinkingBlock
    | ToolCallBlock
    | ToolResultBlock
    | ImageBlock
    | ReasoningBlock;
  export type Role = 'system' | 'developer' | 'user' | 'assistant' | 'function' | 'tool';
  export interface MessageToolCall {
    id: string;
    tool: string;
    arguments: Record<string, unknown>;
  }
  export interface Message {
    role: Role;
    content: string | ContentBlock[];
    name?: string;
    tool_call_id?: string;
    tool_calls?: MessageToolCall[];
    metadata?: Record<string, unknown>;
  }
  export interface ToolSpec {
    name: string;
    parameters: JSONSchema;
    description?: string;
    strict?: boolean;
  }
  export type ResponseFormat =
    | { type: 'text' }
    | { type: 'json' }
    | { type: 'json_schema'; schema: JSONSchema; name?: string; strict?: boolean };
  export type ToolChoice = 'auto' | 'none' | 'required' | { type: 'tool'; name: string };
  export interface ChatRequest {
    messages: Message[];
    tools?: ToolSpec[];
    response_format?: ResponseFormat;
    temperature?: number;
    top_p?: number;
    max_output_tokens?: number;
    conversation_id?: string;
    stream?: boolean;
    metadata?: Record<string, unknown>;
    model?: string;
    tool_choice?: ToolChoice;
    stop?: string[];
    reasoning_effort?: string;
    timeout?: number;
  }
  export interface InvalidToolArguments {
    raw: string;
    problem: 'invalid_json' | 'not_object';
    detail: string;
  }
  export interface ToolCall {
    id: string;
    name: string;
    arguments: Record<string, unknown>;
    invalid_arguments?: InvalidToolArguments;
  }
  export interface Usage {
    input_tokens: number;
    output_tokens: number;
    total_tokens: number;
    reasoning_tokens?: number;
    cache_read_tokens?: number;
    cache_write_tokens?: number;
    cost_usd?: string;
  }
  export interface Degradation {
    requested: string;
    actual: string;
    reason: string;
  }
  export interface ChatResponse {
    content: ContentBlock[];
    tool_calls?: ToolCall[];
    usage?: Usage;
    degradation?: Degradation;
    finish_reason?: string;
    metadata?: Record<string, unknown>;
  }
  export interface ToolResult {
    success: boolean;
    output?: unknown;
    error?: { message: string; type?: string; [key: string]: unknown };
  }
  export type HookAction = 'continue' | 'deny' | 'modify' | 'inject_context' | 'ask_user';
  export type InjectionRole = 'system' | 'user' | 'assistant';
  export type MessageLevel = 'info' | 'warning' | 'error';
  export interface HookResult {
    action?: HookAction;
    data?: Record<string, unknown> | null;
    reason?: string | null;
    context_injection?: string | null;
    context_injection_role?: InjectionRole;
    ephemeral?: boolean;
    approval_prompt?: string | null;
    approval_options?: string[] | null;
    approval_timeout?: number;
    approval_default?: 'allow' | 'deny';
    suppress_output?: boolean;
    user_message?: string | null;
    user_message_level?: MessageLevel;
    user_message_source?: string | null;
    append_to_last_tool_result?: boolean;
  }
  export interface ModuleSpec {
    module: string;
    source?: string;
    config?: Record<string, unknown>;
    instance_id?: string;
    required?: boolean;
  }
  export interface SessionSection {
    orchestrator: string | ModuleSpec;
    context: string | ModuleSpec;
    orchestrator_source?: string;
    context_source?: string;
    injection_budget_per_turn?: number | null;
    injection_size_limit?: number | null;
    raw?: boolean;
    metadata?: Record<string, unknown>;
    debug?: boolean;
    raw_debug?: boolean;
  }
  export interface MountPlan {
    session: SessionSection;
    orchestrator?: { config?: Record<string, unknown> };
    context?: { config?: Record<string, unknown> };
    providers?: ModuleSpec[];
    tools?: ModuleSpec[];
    hooks?: ModuleSpec[];
    agents?: Record<string, unknown>;
  }
  export interface ModuleManifest {
    module: string;
    type: ModuleType;
    entry?: string;
    required?: boolean;
    aliases?: readonly (string | ModuleAlias)[];
    unavailable?: string;
  }
}

describe('data types derived from the schemas keep their hand-written shapes', () => {
  it('messages and content blocks', () => {
    expectTypeOf<Visibility>().toEqualTypeOf<Was.Visibility>();
    expectTypeOf<TextBlock>().toEqualTypeOf<Was.TextBlock>();
    expectTypeOf<ThinkingBlock>().toEqualTypeOf<Was.ThinkingBlock>();
    expectTypeOf<RedactedThinkingBlock>().toEqualTypeOf<Was.RedactedThinkingBlock>();
    expectTypeOf<ToolCallBlock>().toEqualTypeOf<Was.ToolCallBlock>();
    expectTypeOf<ToolResultBlock>().toEqualTypeOf<Was.ToolResultBlock>();
    expectTypeOf<ImageBlock>().toEqualTypeOf<Was.ImageBlock>();
    expectTypeOf<ReasoningBlock>().toEqualTypeOf<Was.ReasoningBlock>();
    expectTypeOf<ContentBlock>().toEqualTypeOf<Was.ContentBlock>();
    expectTypeOf<ContentBlockType>().toEqualTypeOf<Was.ContentBlock['type']>();
    expectTypeOf<Role>().toEqualTypeOf<Was.Role>();
    expectTypeOf<MessageToolCall>().toEqualTypeOf<Was.MessageToolCall>();
    expectTypeOf<Message>().toEqualTypeOf<Was.Message>();
  });

  it('chat requests and responses', () => {
    expectTypeOf<ToolSpec>().toEqualTypeOf<Was.ToolSpec>();
    expectTypeOf<ResponseFormat>().toEqualTypeOf<Was.ResponseFormat>();
    expectTypeOf<ToolChoice>().toEqualTypeOf<Was.ToolChoice>();
    expectTypeOf<ChatRequest>().toEqualTypeOf<Was.ChatRequest>();
    expectTypeOf<InvalidToolArguments>().toEqualTypeOf<Was.InvalidToolArguments>();
    expectTypeOf<ToolCall>().toEqualTypeOf<Was.ToolCall>();
    expectTypeOf<Usage>().toEqualTypeOf<Was.Usage>();
    expectTypeOf<Degradation>().toEqualTypeOf<Was.Degradation>();
    expectTypeOf<ChatResponse>().toEqualTypeOf<Was.ChatResponse>();
  });

  it('tool and hook results', () => {
    expectTypeOf<ToolResult>().toEqualTypeOf<Was.ToolResult>();
    expectTypeOf<HookAction>().toEqualTypeOf<Was.HookAction>();
    expectTypeOf<InjectionRole>().toEqualTypeOf<Was.InjectionRole>();
    expectTypeOf<MessageLevel>().toEqualTypeOf<Was.MessageLevel>();
    expectTypeOf<HookResult>().toEqualTypeOf<Was.HookResult>();
    expectTypeOf<FullHookResult>().toEqualTypeOf<Required<Was.HookResult>>();
  });

  it('mount plans and module manifests', () => {
    expectTypeOf<ModuleSpec>().toEqualTypeOf<Was.ModuleSpec>();
    expectTypeOf<SessionSection>().toEqualTypeOf<Was.SessionSection>();
    expectTypeOf<MountPlan>().toEqualTypeOf<Was.MountPlan>();
    expectTypeOf<ModuleManifest>().toEqualTypeOf<Was.ModuleManifest>();
  });
});
